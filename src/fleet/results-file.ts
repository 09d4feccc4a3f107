import { closeSync, existsSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs'
import type { TaskResult } from './outcome.js'

/**
 * The `--out` file: one JSON line per finished task, appended and synced as each finishes, so an interrupted batch
 * keeps every result it reached. A re-run reads it to find what is missing; the last line for an id wins. A torn
 * last line (the batch was killed mid-write) is ignored and its task runs again.
 */
export function readResults(path: string): Map<string, TaskResult> {
  const results = new Map<string, TaskResult>()
  if (!existsSync(path)) return results
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue
    try {
      const result = JSON.parse(line) as TaskResult
      if (typeof result?.id === 'string' && typeof result.status === 'string') results.set(result.id, result)
    } catch {
      // A torn or foreign line: its task counts as missing and runs again.
    }
  }
  return results
}

/** Appends one result line and syncs it before returning. */
export function appendResult(path: string, result: TaskResult): void {
  const fd = openSync(path, 'a', 0o644)
  try {
    const existing = readTail(path)
    writeSync(fd, `${existing && !existing.endsWith('\n') ? '\n' : ''}${JSON.stringify(result)}\n`)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** The last byte of the file, to start a new line after a torn one. */
function readTail(path: string): string {
  const text = readFileSync(path)
  return text.length ? text.subarray(text.length - 1).toString() : ''
}
