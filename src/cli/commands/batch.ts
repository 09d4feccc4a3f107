import { Command, InvalidArgumentError } from 'commander'
import { basename, dirname, extname, join, resolve } from 'node:path'
import { runLocalBatch } from '../../fleet/local-batch.js'
import { Progress } from '../../fleet/progress.js'
import { contentName, readTaskFile } from '../../fleet/task.js'
import { reinHome } from '../../store/home.js'
import { closeStore, isPostgresUrl, openStoreAt, storeChoice } from '../../runtime/open-store.js'
import { counted } from '../../text/count.js'

interface BatchFlags {
  concurrency: number
  out?: string
  workdir?: string
  store?: string
  retryFailed?: boolean
  name?: string
  detach?: boolean
  maxCostUsd?: number
  maxTokens?: number
  timeoutS?: number
}

const positiveInt = (value: string): number => {
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1 || n > 256) throw new InvalidArgumentError('expected a whole number from 1 to 256.')
  return n
}

const positiveNumber = (value: string): number => {
  const n = Number(value)
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a number above 0.')
  return n
}

const days = (value: string): number => {
  const n = Number(value)
  if (!Number.isFinite(n) || n < 0 || n > 36_500) throw new InvalidArgumentError('expected a number of days from 0 to 36500.')
  return n
}

/**
 * `rein batch <tasks.jsonl>` runs every task of a file (see docs/fleet.md); `rein batch status` shows the queue of
 * a PostgreSQL store. With the JSONL store the tasks run here; with a PostgreSQL store they are queued for
 * `rein worker` processes on any machine, and this command follows them until they finish (unless --detach).
 */
export function registerBatchCommand(program: Command): void {
  const batch = program.command('batch').description('Run a file of agent tasks, here or on rein workers (docs/fleet.md).')
  batch
    .command('run <tasks>', { isDefault: true })
    .description('Run the tasks of a JSONL file (one task per line); re-running finishes only what is missing.')
    .option('--concurrency <n>', 'tasks run at once on this machine', positiveInt, 4)
    .option('--out <file>', 'results file, one JSON line per task (default: <tasks>.results.jsonl)')
    .option('--workdir <dir>', 'where task workspaces and state live (default: <out>.work)')
    .option('--store <url>', 'session store: jsonl (default) or postgres://… to queue the tasks for rein worker')
    .option('--retry-failed', 'run again the tasks whose last result did not complete')
    .option('--name <name>', 'the batch name in a queue (default: the tasks file name and a hash of its tasks)')
    .option('--detach', 'with a PostgreSQL store: queue the tasks and return without following them')
    .option('--max-cost-usd <usd>', 'budget of every task that sets no max_cost_usd (USD over all its attempts)', positiveNumber)
    .option('--max-tokens <n>', 'budget of every task that sets no max_tokens (input and output tokens)', positiveNumber)
    .option('--timeout-s <s>', 'timeout of every task that sets no timeout_s, seconds', positiveNumber)
    .action(async (tasksFile: string, flags: BatchFlags) => {
      process.exitCode = await runBatch(tasksFile, flags).catch((error: unknown) => {
        process.stderr.write(`rein: ${error instanceof Error ? error.message : String(error)}\n`)
        return 1
      })
    })
  batch
    .command('status')
    .description('Show the batches queued in a PostgreSQL store: queued, running, done and failed tasks.')
    .option('--store <url>', 'the PostgreSQL store (else REIN_STORE or store.url)')
    .option('--name <name>', 'only this batch')
    .action(async (flags: { store?: string; name?: string }) => {
      process.exitCode = await batchStatus(flags).catch((error: unknown) => {
        process.stderr.write(`rein: ${error instanceof Error ? error.message : String(error)}\n`)
        return 1
      })
    })
  registerQueueCommands(batch)
}

/** Runs one administration command against the queue of a PostgreSQL store (docs/fleet.md). */
function queueCommand(flags: { store?: string }, body: (url: string) => Promise<number>): Promise<void> {
  const choice = storeChoice({ home: reinHome(), flag: flags.store })
  if (!isPostgresUrl(choice.url)) {
    process.stderr.write('rein: this command works on the queue of a PostgreSQL store; pass --store postgres://… or set REIN_STORE.\n')
    process.exitCode = 2
    return Promise.resolve()
  }
  return body(choice.url).then(
    (code) => void (process.exitCode = code),
    (error: unknown) => {
      process.stderr.write(`rein: ${error instanceof Error ? error.message : String(error)}\n`)
      process.exitCode = 1
    },
  )
}

function registerQueueCommands(batch: Command): void {
  const storeFlag = ['--store <url>', 'the PostgreSQL store (else REIN_STORE or store.url)'] as const
  batch
    .command('cancel <batch>')
    .description('Cancel the unfinished tasks of a queued batch; running ones are stopped by their workers.')
    .option(...storeFlag)
    .action((name: string, flags: { store?: string }) =>
      queueCommand(flags, async (url) => {
        const { cancelBatch } = await import('../../fleet/batch-admin.js')
        const done = await cancelBatch(url, name)
        process.stderr.write(`rein: ${done.text}\n`)
        return done.code
      }),
    )
  batch
    .command('results <batch>')
    .description("Print a queued batch's results from the store, one JSON line per finished task.")
    .option(...storeFlag)
    .action((name: string, flags: { store?: string }) =>
      queueCommand(flags, async (url) => {
        const { batchResults } = await import('../../fleet/batch-admin.js')
        const found = await batchResults(url, name)
        if (!found.found) {
          process.stderr.write(`rein: No batch named ${name} in this store; \`rein batch status\` lists them.\n`)
          return 1
        }
        process.stdout.write(found.lines)
        if (found.pending) process.stderr.write(`rein: ${counted(found.pending, 'task')} of batch ${name} not finished yet.\n`)
        return 0
      }),
    )
  batch
    .command('retry <batch>')
    .description('Queue again the tasks of a batch that failed, timed out or were cancelled (each resumes its session).')
    .requiredOption('--failed', 'the tasks whose last result did not complete (the only choice, said out loud)')
    .option(...storeFlag)
    .action((name: string, flags: { store?: string }) =>
      queueCommand(flags, async (url) => {
        const { retryFailed } = await import('../../fleet/batch-admin.js')
        const done = await retryFailed(url, name)
        process.stderr.write(`rein: ${done.text}\n`)
        return done.code
      }),
    )
  batch
    .command('prune')
    .description('Delete the records of batches finished more than --older-than days ago (sessions stay).')
    .option('--older-than <days>', 'days since the batch last changed (0: every finished batch)', days, 30)
    .option(...storeFlag)
    .action((flags: { store?: string; olderThan: number }) =>
      queueCommand(flags, async (url) => {
        const { pruneBatches } = await import('../../fleet/batch-admin.js')
        process.stderr.write(`rein: ${await pruneBatches(url, flags.olderThan)}\n`)
        return 0
      }),
    )
}

async function runBatch(tasksFile: string, flags: BatchFlags): Promise<number> {
  const file = await readTaskFile(tasksFile, {
    ...(flags.maxCostUsd !== undefined ? { maxCostUsd: flags.maxCostUsd } : {}),
    ...(flags.maxTokens !== undefined ? { maxTokens: Math.ceil(flags.maxTokens) } : {}),
    ...(flags.timeoutS !== undefined ? { timeoutS: flags.timeoutS } : {}),
  })
  if (file.problems.length) {
    for (const problem of file.problems) process.stderr.write(`rein: ${problem}\n`)
    process.stderr.write(`rein: nothing was run; fix ${counted(file.problems.length, 'line')} and run the batch again.\n`)
    return 2
  }
  const home = reinHome()
  const choice = storeChoice({ home, flag: flags.store })
  const store = await openStoreAt(choice.url, home, choice.source)
  const out = resolve(flags.out ?? join(dirname(tasksFile), `${basename(tasksFile, extname(tasksFile))}.results.jsonl`))
  const controller = new AbortController()
  const interrupt = (): void => {
    if (!controller.signal.aborted) process.stderr.write('\nrein: stopping: running tasks are closing their turns; run the same command again to finish the rest.\n')
    controller.abort()
  }
  process.on('SIGINT', interrupt)
  process.on('SIGTERM', interrupt)
  try {
    if (isPostgresUrl(choice.url)) {
      const { runQueuedBatch } = await import('../../fleet/queued-batch.js')
      return await runQueuedBatch({
        tasks: file.tasks,
        name: flags.name ?? contentName(basename(tasksFile, extname(tasksFile)), file.tasks),
        url: choice.url,
        out,
        detach: flags.detach === true,
        retryFailed: flags.retryFailed === true,
        signal: controller.signal,
        progress: (total) => new Progress(total, (text) => process.stderr.write(text), process.stderr.isTTY === true),
      })
    }
    const summary = await runLocalBatch({
      tasks: file.tasks,
      out,
      workdir: resolve(flags.workdir ?? `${out}.work`),
      concurrency: flags.concurrency,
      store,
      storeUrl: choice.url,
      home,
      env: process.env,
      retryFailed: flags.retryFailed === true,
      signal: controller.signal,
      progress: (total) => new Progress(total, (text) => process.stderr.write(text), process.stderr.isTTY === true),
    })
    const skipped = summary.skipped ? `, ${summary.skipped} already in the results file` : ''
    if (summary.interrupted || controller.signal.aborted) {
      process.stderr.write(
        `rein: batch interrupted: ${summary.completed} completed, ${summary.failed} failed, ${summary.interrupted} stopped${skipped}; run the same command again to finish the rest.\n`,
      )
      return 130
    }
    process.stderr.write(`rein: batch finished: ${summary.completed} completed, ${summary.failed} failed${skipped}; results in ${out}.\n`)
    return summary.failed ? 1 : 0
  } finally {
    process.off('SIGINT', interrupt)
    process.off('SIGTERM', interrupt)
    await closeStore(store)
  }
}

async function batchStatus(flags: { store?: string; name?: string }): Promise<number> {
  const choice = storeChoice({ home: reinHome(), flag: flags.store })
  if (!isPostgresUrl(choice.url)) {
    process.stderr.write('rein: batch status reads the queue of a PostgreSQL store; pass --store postgres://… or set REIN_STORE.\n')
    return 2
  }
  const { queueStatus } = await import('../../fleet/queued-batch.js')
  process.stdout.write(await queueStatus(choice.url, flags.name))
  return 0
}
