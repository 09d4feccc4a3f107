import type { ChildProcessWithoutNullStreams } from 'node:child_process'
import { existsSync, mkdtempSync, realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { CLI, runCli, spawnCli } from '../support/cli.js'
import type { MockModel } from '../support/mock-model.js'

export function requireBuiltCli(): void {
  if (!existsSync(CLI)) throw new Error(`The built CLI ${CLI} is missing; run "npm run build" first.`)
}

export function tempDir(prefix: string): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)))
}

export function reinEnv(mock: MockModel, home: string): NodeJS.ProcessEnv {
  return { ...process.env, DEEPSEEK_BASE_URL: mock.url, DEEPSEEK_API_KEY: 'test-key', REIN_HOME: home, NO_COLOR: '1' }
}

/** Runs `rein …` to completion in the current directory with empty standard input (so `-p` does not wait). */
export function runRein(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runCli(args, { cwd: process.cwd(), env })
}

/** A `rein rpc` child: send commands, wait for responses and for the agent to go idle. */
export class ReinRpc {
  private readonly child: ChildProcessWithoutNullStreams
  private readonly lines: Record<string, unknown>[] = []
  private readonly waiters: (() => void)[] = []
  stderr = ''

  constructor(args: string[], env: NodeJS.ProcessEnv) {
    this.child = spawnCli(['rpc', ...args], { cwd: process.cwd(), env })
    this.child.stderr.on('data', (d: Buffer) => (this.stderr += d.toString('utf8')))
    this.child.on('close', () => {
      for (const wake of this.waiters.splice(0)) wake()
    })
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      this.lines.push(JSON.parse(line) as Record<string, unknown>)
      for (const wake of this.waiters.splice(0)) wake()
    })
  }

  send(command: Record<string, unknown>): void {
    this.child.stdin.write(`${JSON.stringify(command)}\n`)
  }

  /** Sends a prompt and waits until the agent reports idle after it. */
  async prompt(text: string): Promise<void> {
    const from = this.lines.length
    this.send({ type: 'prompt', message: text })
    await this.until((line, i) => i >= from && line.type === 'event' && (line.event as { type?: string }).type === 'idle')
  }

  async request(command: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = `r${Math.random()}`
    this.send({ ...command, id })
    return this.until((line) => line.type === 'response' && line.id === id)
  }

  async close(): Promise<void> {
    const closed = new Promise((resolve) => this.child.on('close', resolve))
    this.send({ type: 'shutdown' })
    this.child.stdin.end()
    await closed
  }

  private async until(test: (line: Record<string, unknown>, index: number) => boolean): Promise<Record<string, unknown>> {
    for (;;) {
      const index = this.lines.findIndex(test)
      if (index >= 0) return this.lines[index]
      if (this.child.exitCode !== null) throw new Error(`rein rpc exited (${this.child.exitCode}): ${this.stderr}`)
      await new Promise<void>((resolve) => this.waiters.push(resolve))
    }
  }
}

/** A chat-wire message as the mock recorded it. */
export interface WireMessage {
  role: string
  content: unknown
  tool_calls?: unknown[]
}

export function messagesOf(mock: MockModel, index: number): WireMessage[] {
  return (mock.requests[index].body as { messages: WireMessage[] }).messages
}

/** The text of a user-role message, whether the wire sent a string or content parts. */
export function userText(message: WireMessage): string {
  if (typeof message.content === 'string') return message.content
  if (Array.isArray(message.content)) return message.content.map((p: { text?: string }) => p.text ?? '').join('')
  return ''
}
