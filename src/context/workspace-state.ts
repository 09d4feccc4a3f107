import type { JsonValue } from '../session/events.js'
import type { ProducedMessage } from './produced-messages.js'

/**
 * What the workspace-context producer records in the `meta` of each of its messages, and how it reads its own
 * records back. `meta` stays in the log and never reaches the model.
 */

/**
 * The status of one file as of a message: `shown` (its content is in the message), `dropped` (left out for the
 * budget, and said so), `duplicate` (same bytes as a file shown, so not repeated), `removed` (deleted; `sha256` null).
 */
export type FileStatus = 'shown' | 'dropped' | 'duplicate' | 'removed'

/** One file in a message's meta. `sha256` is the hex digest of the bytes the message was built from. */
export type FileRecord = { path: string; sha256: string | null; status: FileStatus }

/** The whole `meta` of one message: which block it is (`workspace`, `directory`, `update`) and its files. */
export type WorkspaceMeta = { block: 'workspace' | 'directory' | 'update'; dir?: string; files: FileRecord[] }

const STATUSES: readonly string[] = ['shown', 'dropped', 'duplicate', 'removed']

/**
 * The latest record of every file named in the given messages, later messages winning, in the order paths were
 * first named. Malformed meta (a hand-edited log) is skipped entry by entry: an unreadable record only means the file
 * is shown again, which is the safe side.
 */
export function knownFiles(messages: readonly ProducedMessage[], extra: readonly FileRecord[] = []): Map<string, FileRecord> {
  const known = new Map<string, FileRecord>()
  for (const message of messages) {
    for (const record of recordsOf(message.meta)) known.set(record.path, record)
  }
  for (const record of extra) known.set(record.path, record)
  return known
}

/** Whether a file's latest record says the model has been told about it as it was then. */
export function isAccounted(record: FileRecord | undefined): record is FileRecord & { sha256: string } {
  return record !== undefined && record.status !== 'removed' && record.sha256 !== null
}

function recordsOf(meta: JsonValue | undefined): FileRecord[] {
  if (!meta || typeof meta !== 'object' || Array.isArray(meta)) return []
  const files = meta.files
  if (!Array.isArray(files)) return []
  const out: FileRecord[] = []
  for (const entry of files) {
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) continue
    const { path, sha256, status } = entry
    if (typeof path !== 'string' || typeof status !== 'string' || !STATUSES.includes(status)) continue
    if (sha256 !== null && typeof sha256 !== 'string') continue
    out.push({ path, sha256, status: status as FileStatus })
  }
  return out
}
