import { spawn, type ChildProcess } from 'node:child_process'
import { CLI } from '../support/cli.js'

/**
 * The `rein worker` processes of one test file. Each starts in its own process group, so killing the group is like
 * losing the machine (its `rein -p` children go too); `killWorkers` does that for whatever a test left running.
 */
const started: ChildProcess[] = []

export function startWorker(args: string[], cwd: string, env: NodeJS.ProcessEnv): { child: ChildProcess; log: () => string } {
  const child = spawn(process.execPath, [CLI, 'worker', ...args], { cwd, env, stdio: ['ignore', 'ignore', 'pipe'], detached: true })
  started.push(child)
  let log = ''
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()))
  return { child, log: () => log }
}

/** Kills every worker still running (its whole process group) and waits for each to close. */
export async function killWorkers(): Promise<void> {
  for (const worker of started.splice(0)) {
    if (worker.exitCode === null && worker.signalCode === null) {
      process.kill(-worker.pid!, 'SIGKILL')
      await new Promise((resolve) => worker.on('close', resolve))
    }
  }
}

/** Polls `check` every 100 ms; throws a sentence naming `what` after `ms`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  const end = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}
