import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable, Writable } from 'node:stream'
import {
  client as clientApp,
  ndJsonStream,
  type ClientConnection,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from '@agentclientprotocol/sdk'
import { spawnCli } from '../support/cli.js'

export function tempDir(prefix: string): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)))
}

/** How the test client answers a permission request: an option id, or `cancelled`. */
export type PermissionChoice = 'allow-once' | 'allow-always' | 'reject-once' | 'cancelled'

/** One frame as it crossed the wire, parsed. */
export interface Frame {
  direction: 'sent' | 'received'
  message: Record<string, unknown>
}

export interface ReinAcp {
  child: ChildProcess
  connection: ClientConnection
  /** Every `session/update` received, in order. */
  updates: SessionNotification[]
  permissionRequests: RequestPermissionRequest[]
  /** Answers for the next permission requests, taken in order; `allow-once` when none is left. */
  permissionChoices: PermissionChoice[]
  /** Every frame both ways, in the order each side saw them. */
  frames: Frame[]
  stderr: () => string
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>
  /** Raw bytes straight to the agent's stdin, past the SDK (for malformed frames). */
  writeRaw(text: string): void
  updatesOf(sessionId: string): SessionNotification['update'][]
  /** Ends the client's side of the connection (stdin EOF), as an editor closing does. */
  disconnect(): Promise<number | null>
}

/**
 * Spawns the built `rein acp` with a temporary REIN_HOME and the mock model's URL, and connects the SDK's
 * client-side connection to its stdio.
 */
export function startReinAcp(env: {
  home: string
  baseUrl: string
  cwd: string
  args?: string[]
  /** Start without DEEPSEEK_API_KEY. */
  noKey?: boolean
}): ReinAcp {
  const child = spawnCli(['acp', ...(env.args ?? [])], {
    cwd: env.cwd,
    env: {
      PATH: process.env.PATH,
      HOME: env.home,
      REIN_HOME: env.home,
      DEEPSEEK_BASE_URL: env.baseUrl,
      ...(env.noKey ? {} : { DEEPSEEK_API_KEY: 'test-key' }),
    },
  })
  let stderr = ''
  child.stderr!.setEncoding('utf8')
  child.stderr!.on('data', (text: string) => (stderr += text))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))

  const frames: Frame[] = []
  const decoder = new TextDecoder()
  const tap = (direction: Frame['direction']) => {
    let pending = ''
    return new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        pending += decoder.decode(chunk, { stream: true })
        let newline: number
        while ((newline = pending.indexOf('\n')) >= 0) {
          const line = pending.slice(0, newline).trim()
          pending = pending.slice(newline + 1)
          if (line) {
            try {
              frames.push({ direction, message: JSON.parse(line) as Record<string, unknown> })
            } catch {
              frames.push({ direction, message: { unparsed: line } })
            }
          }
        }
        controller.enqueue(chunk)
      },
    })
  }
  const stdinWeb = Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>
  const toAgent = tap('sent')
  void toAgent.readable.pipeTo(stdinWeb).catch(() => {
    // The process exited while a frame was being written; the test sees that through `exited`.
  })
  const fromAgent = (Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>).pipeThrough(tap('received'))

  const updates: SessionNotification[] = []
  const permissionRequests: RequestPermissionRequest[] = []
  const permissionChoices: PermissionChoice[] = []
  const app = clientApp({ name: 'rein-acp-test' })
    .onNotification('session/update', ({ params }) => {
      updates.push(params)
    })
    .onRequest('session/request_permission', ({ params }): RequestPermissionResponse => {
      permissionRequests.push(params)
      const choice = permissionChoices.shift() ?? 'allow-once'
      return choice === 'cancelled'
        ? { outcome: { outcome: 'cancelled' } }
        : { outcome: { outcome: 'selected', optionId: choice } }
    })
  const writer = toAgent.writable.getWriter()
  const sdkSide = new WritableStream<Uint8Array>({ write: (chunk) => writer.write(chunk) })
  const connection = app.connect(ndJsonStream(sdkSide, fromAgent))

  return {
    child,
    connection,
    updates,
    permissionRequests,
    permissionChoices,
    frames,
    stderr: () => stderr,
    exited,
    writeRaw: (text) => void writer.write(new TextEncoder().encode(text)),
    updatesOf: (sessionId) => updates.filter((u) => u.sessionId === sessionId).map((u) => u.update),
    async disconnect() {
      await writer.close().catch(() => {
        // Already closed because the process went away: nothing left to end.
      })
      return exited
    },
  }
}

export const CLIENT_INIT = {
  protocolVersion: 1,
  clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
  clientInfo: { name: 'rein-acp-test', version: '0.0.0' },
}

/** Waits until `check` passes, polling; fails with `what` after `ms`. */
export async function until(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const start = Date.now()
  while (!check()) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}
