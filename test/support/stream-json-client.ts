import { spawnCli } from './cli.js'

/** A parsed stdout line of `rein -p --output-format stream-json` (checked field by field by the tests). */
// `any` on purpose: lines are arbitrary JSON that the tests inspect field by field.
export type Line = Record<string, any>

/**
 * Drives `rein -p --input-format stream-json` as a program would: writes lines to its stdin, waits for lines on its
 * stdout, and ends the input when the test says so.
 */
export function streamJsonClient(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
  const child = spawnCli(args, options)
  const lines: Line[] = []
  let stdout = ''
  let stderr = ''
  const waiters: { test: (line: Line) => boolean; from: number; resolve: (line: Line) => void }[] = []
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString()
    let nl: number
    while ((nl = stdout.indexOf('\n')) >= 0) {
      const text = stdout.slice(0, nl)
      stdout = stdout.slice(nl + 1)
      lines.push(JSON.parse(text) as Line)
      for (const w of [...waiters]) {
        const hit = lines.slice(w.from).find(w.test)
        if (hit) {
          waiters.splice(waiters.indexOf(w), 1)
          w.resolve(hit)
        }
      }
    }
  })
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
  return {
    lines,
    get stderr() {
      return stderr
    },
    /** Writes one line: an object as JSON, a string exactly as given. */
    send(line: unknown): void {
      child.stdin.write(`${typeof line === 'string' ? line : JSON.stringify(line)}\n`)
    },
    /** The first line from index `from` on that passes `test`, now or when it arrives. */
    waitFor(test: (line: Line) => boolean, from = 0, timeoutMs = 30_000): Promise<Line> {
      const hit = lines.slice(from).find(test)
      if (hit) return Promise.resolve(hit)
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching line in time; stderr: ${stderr}; lines: ${lines.map((l) => l.type).join(',')}`)), timeoutMs)
        waiters.push({ test, from, resolve: (line) => (clearTimeout(timer), resolve(line)) })
      })
    },
    /** Sends a signal; `exited` resolves with the exit code. */
    kill(signal: NodeJS.Signals): void {
      child.kill(signal)
    },
    exited,
    /** Ends stdin and resolves with the exit code once the process has closed. */
    async end(): Promise<number | null> {
      child.stdin.end()
      return exited
    },
  }
}

/** A user message in Claude Code's stream-json input shape. */
export const userMessage = (content: unknown): Line => ({ type: 'user', message: { role: 'user', content }, parent_tool_use_id: null, session_id: '' })
