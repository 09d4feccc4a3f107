import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import type { McpServerConfig } from '../../src/mcp/index.js'
import type { ToolContext } from '../../src/tools/tool.js'

/** The test MCP server (written with the official SDK). */
export const FIXTURE_SERVER = fileURLToPath(new URL('./fixtures/server.mjs', import.meta.url))

export function stdioFixture(name = 'fixture', extraArgs: string[] = [], env: Record<string, string> = {}): McpServerConfig {
  return { name, type: 'stdio', command: process.execPath, args: [FIXTURE_SERVER, 'stdio', ...extraArgs], env }
}

/** The fixture served over streamable HTTP on loopback, in its own process so a test can kill it. */
export async function startHttpFixture(): Promise<{ url: string; process: ChildProcess; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [FIXTURE_SERVER, 'http'], { stdio: ['ignore', 'pipe', 'inherit'] })
  const line = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! })
    lines.once('line', resolve)
    child.once('exit', (code) => reject(new Error(`the HTTP fixture exited with ${code} before listening`)))
  })
  const { url } = JSON.parse(line) as { url: string }
  return {
    url,
    process: child,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGKILL')
      await exited
    },
  }
}

/** A tool context as the agent would create it for one call. */
export function toolContext(signal: AbortSignal = new AbortController().signal): ToolContext {
  return {
    cwd: process.cwd(),
    callId: 'call-1',
    signal,
    state: { files: new Map(), spillDir: '/tmp', extra: new Map(), secretEnv: new Set() },
    record: () => {},
  }
}

/** Resolves once `check` holds, polling; rejects with `what` after `ms`. Used for asynchronous state changes. */
export async function eventually(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const start = Date.now()
  while (!check()) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
