import type { ChildProcessWithoutNullStreams } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { spawnCli } from '../support/cli.js'

/** Every event of the one session under `home`. */
export function sessionEvents(home: string): { type: string; data: Record<string, unknown> }[] {
  const dir = join(home, 'sessions')
  const [folder] = readdirSync(dir)
  const [file] = readdirSync(join(dir, folder)).filter((f) => f.endsWith('.jsonl'))
  return readFileSync(join(dir, folder, file), 'utf8').trim().split('\n').slice(1).map((l) => JSON.parse(l))
}

/** A `rein rpc --ask-permissions` child whose permission requests a test answers. */
export class AskingRpc {
  private readonly child: ChildProcessWithoutNullStreams
  readonly lines: Record<string, unknown>[] = []
  private readonly waiters: (() => void)[] = []
  stderr = ''

  constructor(args: string[], env: NodeJS.ProcessEnv) {
    this.child = spawnCli(['rpc', '--ask-permissions', ...args], { cwd: process.cwd(), env })
    this.child.stderr.on('data', (d: Buffer) => (this.stderr += d.toString('utf8')))
    this.child.on('close', () => this.wake())
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      this.lines.push(JSON.parse(line) as Record<string, unknown>)
      this.wake()
    })
  }

  send(command: Record<string, unknown>): void {
    this.child.stdin.write(`${JSON.stringify(command)}\n`)
  }

  /** Waits for the next line (from `from`) that passes `test`. */
  async next(test: (line: Record<string, unknown>) => boolean, from = 0): Promise<Record<string, unknown>> {
    for (;;) {
      const found = this.lines.slice(from).find(test)
      if (found) return found
      if (this.child.exitCode !== null) throw new Error(`rein rpc exited (${this.child.exitCode}): ${this.stderr}`)
      await new Promise<void>((resolve) => this.waiters.push(resolve))
    }
  }

  idleAfter(from: number): Promise<Record<string, unknown>> {
    return this.next((l) => l.type === 'event' && (l.event as { type?: string }).type === 'idle', from)
  }

  async close(): Promise<void> {
    const closed = new Promise((resolve) => this.child.on('close', resolve))
    this.send({ type: 'shutdown' })
    this.child.stdin.end()
    await closed
  }

  private wake(): void {
    for (const wake of this.waiters.splice(0)) wake()
  }
}
