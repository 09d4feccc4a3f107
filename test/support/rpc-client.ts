import { createInterface } from 'node:readline'
import type { ChildProcessWithoutNullStreams } from 'node:child_process'

/** A `rein rpc` process with helpers to send commands and wait for lines. */
export function rpc(child: ChildProcessWithoutNullStreams) {
  const lines: Record<string, unknown>[] = []
  const waiters: { test: (l: Record<string, unknown>) => boolean; resolve: (l: Record<string, unknown>) => void }[] = []
  createInterface({ input: child.stdout }).on('line', (line) => {
    const parsed = JSON.parse(line) as Record<string, unknown>
    lines.push(parsed)
    for (const w of [...waiters]) {
      if (w.test(parsed)) {
        waiters.splice(waiters.indexOf(w), 1)
        w.resolve(parsed)
      }
    }
  })
  let stderr = ''
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  const waitFor = (test: (l: Record<string, unknown>) => boolean, timeoutMs = 20_000): Promise<Record<string, unknown>> => {
    const found = lines.find(test)
    if (found) return Promise.resolve(found)
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting; stderr: ${stderr}; lines: ${JSON.stringify(lines.slice(-5))}`)), timeoutMs)
      waiters.push({ test, resolve: (l) => (clearTimeout(timer), resolve(l)) })
    })
  }
  let nextId = 1
  const send = (command: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const id = nextId++
    child.stdin.write(`${JSON.stringify({ id, ...command })}\n`)
    return waitFor((l) => l.type === 'response' && l.id === id)
  }
  const committed = (type: string) => (l: Record<string, unknown>) =>
    l.type === 'event' && (l.event as { type: string; event?: { type: string } }).type === 'event' &&
    (l.event as { event: { type: string } }).event.type === type
  /** The n-th `idle` event (1-based): the agent finished everything it was given. */
  const idle = (n: number) => (l: Record<string, unknown>) =>
    l.type === 'event' && (l.event as { type: string }).type === 'idle' && lines.filter((x) => x.type === 'event' && (x.event as { type: string }).type === 'idle').indexOf(l) === n - 1
  return { lines, send, waitFor, committed, idle, raw: (text: string) => child.stdin.write(text) }
}
