import { writeFileAtomic } from '../fs/atomic-write.js'
import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import type { FileVersion, ToolState } from './tool.js'

/** The sha256 of a file's bytes, read as a stream so a large file is never held whole. */
export async function hashFile(file: string): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer)
  return hash.digest('hex')
}

export function hashBytes(bytes: string | Buffer): string {
  return createHash('sha256').update(bytes).digest('hex')
}

export type Freshness =
  | { ok: true }
  | { ok: false; reason: 'unread' | 'changed' }

/**
 * Whether the file at `absolute` (which exists) is the version this agent last read or wrote. Equal mtime and size
 * is taken as unchanged; when only the mtime moved (a touch, a checkout of the same bytes) the content hash decides.
 */
export async function checkFresh(state: ToolState, absolute: string): Promise<Freshness> {
  const seen = state.files.get(absolute)
  if (!seen) return { ok: false, reason: 'unread' }
  const now = await stat(absolute)
  if (now.size !== seen.size) return { ok: false, reason: 'changed' }
  if (now.mtimeMs === seen.mtimeMs) return { ok: true }
  return (await hashFile(absolute)) === seen.sha256 ? { ok: true } : { ok: false, reason: 'changed' }
}

/** Records the version on disk now, whose bytes hash to `sha256`, as the one this agent has seen. */
export async function recordVersion(state: ToolState, absolute: string, sha256: string): Promise<FileVersion> {
  const now = await stat(absolute)
  const version = { mtimeMs: now.mtimeMs, size: now.size, sha256 }
  state.files.set(absolute, version)
  return version
}

/** The sentence the model reads when a write or edit is refused for freshness. */
export function freshnessError(shown: string, reason: 'unread' | 'changed'): string {
  return reason === 'unread'
    ? `Error: ${shown} exists and you have not read it in this session; read it first, then write.`
    : `Error: ${shown} changed on disk since you last read it; read it again, then redo your change.`
}

/**
 * Writes a file the agent changes (write, edit) atomically and records its new version, so the next edit of it needs
 * no fresh read. Returns the error sentence the model reads, or undefined on success.
 */
export async function writeTracked(state: ToolState, absolute: string, shown: string, text: string): Promise<string | undefined> {
  try {
    await writeFileAtomic(absolute, text, { checkedDirectory: true })
  } catch (error) {
    return `Error: could not write ${shown}: ${(error as Error).message}.`
  }
  await recordVersion(state, absolute, hashBytes(text))
  return undefined
}
