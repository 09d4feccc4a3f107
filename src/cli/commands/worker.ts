import { Command, InvalidArgumentError, Option } from 'commander'
import type { PermissionMode } from '../../agent/types.js'
import { tmpdir, userInfo } from 'node:os'
import { join, relative, resolve, isAbsolute } from 'node:path'
import { runWorker } from '../../fleet/worker.js'
import { formatLogLine, type LogFields, type LogFormat } from '../../fleet/log-line.js'
import { reinHome } from '../../store/home.js'
import { isPostgresUrl, storeChoice } from '../../runtime/open-store.js'

const positiveInt = (value: string): number => {
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1 || n > 256) throw new InvalidArgumentError('expected a whole number from 1 to 256.')
  return n
}

interface WorkerFlags {
  store?: string
  concurrency: number
  workdir?: string
  maxPermissionMode: PermissionMode
  allowSetup?: boolean
  allowTaskRules?: boolean
  allowCwdAnywhere?: boolean
  metricsPort?: number
  metricsHost?: string
  logFormat: LogFormat
}

const port = (value: string): number => {
  const n = Number(value)
  if (!Number.isInteger(n) || n < 0 || n > 65_535) throw new InvalidArgumentError('expected a port number from 0 to 65535.')
  return n
}

/** `rein worker --store postgres://… [--concurrency N]`: runs queued batch tasks until stopped (docs/fleet.md). */
export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description('Take tasks queued by rein batch in a PostgreSQL store and run them, until stopped (Ctrl-C).')
    .option('--store <url>', 'the PostgreSQL store (else REIN_STORE or store.url)')
    .option('--concurrency <n>', 'tasks run at once', positiveInt, 4)
    .option('--workdir <dir>', 'where task workspaces live, outside $REIN_HOME (default: <temp dir>/rein-worker-<uid>)')
    .addOption(
      new Option('--max-permission-mode <mode>', 'the most a task may ask for: plan < default < accept-edits < bypass')
        .choices(['plan', 'default', 'accept-edits', 'bypass'])
        .default('accept-edits'),
    )
    .option('--allow-setup', "run tasks' setup commands (else a task with one is refused)")
    .option('--allow-task-rules', "honour tasks' allow rules (else a task with some is refused)")
    .option('--allow-cwd-anywhere', "run tasks whose cwd lies outside their tasks file's folder")
    .option('--metrics-port <port>', 'serve Prometheus metrics at http://127.0.0.1:<port>/metrics and health at /healthz (0: any free port)', port)
    .option('--metrics-host <address>', 'the address metrics listen on (default 127.0.0.1; 0.0.0.0 inside a container)')
    .addOption(new Option('--log-format <format>', 'text: one sentence per line; json: one object per line (time, level, msg, worker, batch, task)').choices(['text', 'json']).default('text'))
    .action(async (flags: WorkerFlags) => {
      const say = (line: string, fields?: LogFields): void => void process.stderr.write(`${formatLogLine(flags.logFormat, line, fields)}\n`)
      const home = reinHome()
      const choice = storeChoice({ home, flag: flags.store })
      if (!isPostgresUrl(choice.url)) {
        process.stderr.write('rein: a worker takes tasks from a PostgreSQL store; pass --store postgres://… or set REIN_STORE.\n')
        process.exitCode = 2
        return
      }
      const workdir = resolve(flags.workdir ?? join(tmpdir(), `rein-worker-${userInfo().uid}`))
      if (isInside(workdir, home)) {
        // The read guard refuses every file in Rein's home, so a task working there could read none of its own files.
        process.stderr.write(`rein: --workdir ${workdir} is inside Rein's home (${home}), whose files no task may read; choose a folder outside it.\n`)
        process.exitCode = 2
        return
      }
      const controller = new AbortController()
      const stop = (): void => {
        if (controller.signal.aborted) {
          // A second signal: stop at once. Running tasks already had SIGTERM; pg-boss's expiry and the others' reaping
          // hand back whatever this worker held.
          say('rein: worker stopped at once.')
          process.exit(130)
        }
        say('rein: worker draining: no new tasks; running ones go back to the queue. A second signal stops at once.')
        controller.abort()
      }
      process.on('SIGINT', stop)
      process.on('SIGTERM', stop)
      try {
        await runWorker({
          url: choice.url,
          concurrency: flags.concurrency,
          workdir,
          home,
          env: process.env,
          signal: controller.signal,
          staleMs: positiveEnv('REIN_WORKER_STALE_MS') ?? 30_000,
          maintenanceSeconds: positiveEnv('REIN_QUEUE_MAINTENANCE_S') ?? 30,
          log: say,
          ...(flags.metricsPort !== undefined ? { metricsPort: flags.metricsPort } : {}),
          ...(flags.metricsHost !== undefined ? { metricsHost: flags.metricsHost } : {}),
          policy: {
            maxPermissionMode: flags.maxPermissionMode,
            allowSetup: flags.allowSetup === true,
            allowTaskRules: flags.allowTaskRules === true,
            allowCwdAnywhere: flags.allowCwdAnywhere === true,
          },
        })
      } catch (error) {
        say(`rein: ${error instanceof Error ? error.message : String(error)}`, { level: 'error' })
        process.exitCode = 1
      }
    })
}

function positiveEnv(name: string): number | undefined {
  const value = Number(process.env[name])
  return Number.isFinite(value) && value > 0 ? value : undefined
}

function isInside(path: string, dir: string): boolean {
  const rel = relative(resolve(dir), path)
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
}
