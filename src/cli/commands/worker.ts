import { Command, InvalidArgumentError } from 'commander'
import { join, resolve } from 'node:path'
import { runWorker } from '../../fleet/worker.js'
import { reinHome } from '../../store/home.js'
import { isPostgresUrl, storeChoice } from '../../runtime/open-store.js'

const positiveInt = (value: string): number => {
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1 || n > 256) throw new InvalidArgumentError('expected a whole number from 1 to 256.')
  return n
}

/** `rein worker --store postgres://… [--concurrency N]`: runs queued batch tasks until stopped (docs/fleet.md). */
export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description('Take tasks queued by rein batch in a PostgreSQL store and run them, until stopped (Ctrl-C).')
    .option('--store <url>', 'the PostgreSQL store (else REIN_STORE or store.url)')
    .option('--concurrency <n>', 'tasks run at once', positiveInt, 4)
    .option('--workdir <dir>', 'where task workspaces live (default: $REIN_HOME/fleet/workspaces)')
    .action(async (flags: { store?: string; concurrency: number; workdir?: string }) => {
      const home = reinHome()
      const choice = storeChoice({ home, flag: flags.store })
      if (!isPostgresUrl(choice.url)) {
        process.stderr.write('rein: a worker takes tasks from a PostgreSQL store; pass --store postgres://… or set REIN_STORE.\n')
        process.exitCode = 2
        return
      }
      const controller = new AbortController()
      const stop = (): void => {
        if (!controller.signal.aborted) process.stderr.write('rein: worker stopping: running tasks go back to the queue.\n')
        controller.abort()
      }
      process.on('SIGINT', stop)
      process.on('SIGTERM', stop)
      try {
        await runWorker({
          url: choice.url,
          concurrency: flags.concurrency,
          workdir: resolve(flags.workdir ?? join(home, 'fleet', 'workspaces')),
          home,
          env: process.env,
          signal: controller.signal,
          staleMs: positiveEnv('REIN_WORKER_STALE_MS') ?? 30_000,
          maintenanceSeconds: positiveEnv('REIN_QUEUE_MAINTENANCE_S') ?? 30,
          log: (line) => process.stderr.write(`${line}\n`),
        })
      } catch (error) {
        process.stderr.write(`rein: ${error instanceof Error ? error.message : String(error)}\n`)
        process.exitCode = 1
      }
    })
}

function positiveEnv(name: string): number | undefined {
  const value = Number(process.env[name])
  return Number.isFinite(value) && value > 0 ? value : undefined
}
