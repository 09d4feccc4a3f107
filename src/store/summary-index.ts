import { closeSync, openSync, statSync } from 'node:fs'
import { readFile, readdir } from 'node:fs/promises'
import { writeFileAtomic } from '../fs/atomic-write.js'
import { join } from 'node:path'
import { scanLinesSync } from './line-reader.js'
import type { SessionSummary } from './store.js'
import { emptySummaryState, feedSummary, PREFIX_CHARS, summaryOf, type SummaryState } from './summary-scan.js'

/** The index file kept in each cwd directory. Starts with a dot so it never looks like a session. */
export const INDEX_FILE = '.index.json'
const INDEX_VERSION = 1


/**
 * One indexed file. `state` covers the bytes before `scannedTo` (complete lines only), so a file that grew is
 * summarized by scanning just its new bytes: logs are append-only. `size` and `mtimeMs` say whether it is current.
 */
export interface IndexEntry {
  size: number
  mtimeMs: number
  scannedTo: number
  state: SummaryState
  /** The summary at `size` bytes, a complete last line without its newline included. */
  summary?: SessionSummary
}

interface IndexFile {
  version: number
  files: Record<string, IndexEntry>
}

/**
 * Summaries of every session file in one cwd directory. Uses the directory's index where a file's size and mtime
 * match, scans only the new bytes of files that grew, scans other files whole (line starts only, see
 * `feedSummary`), and rewrites the index when anything changed.
 */
export async function summarizeDirectory(dir: string): Promise<SessionSummary[]> {
  return Object.values(await indexDirectory(dir)).flatMap((entry) => entry.summary ?? [])
}

/** The index entry of every session file in one cwd directory, by session id, brought up to date as `summarizeDirectory` says. */
export async function indexDirectory(dir: string): Promise<Record<string, IndexEntry>> {
  const names = (await readdir(dir)).filter((name) => name.endsWith('.jsonl'))
  const index = await readIndex(dir)
  const next: IndexFile = { version: INDEX_VERSION, files: {} }
  let changed = Object.keys(index.files).length !== names.length

  for (const name of names) {
    const id = name.slice(0, -'.jsonl'.length)
    const result = summarizeFile(join(dir, name), index.files[id])
    if (!result) continue
    next.files[id] = result.entry
    if (result.entry !== index.files[id]) changed = true
  }

  if (changed) await writeIndex(dir, next)
  return next.files
}

/**
 * One file's summary, read synchronously: a listing touches many small files, and per-call thread-pool trips cost
 * more than the reads themselves (cold listing of 1,000 files in bench/session-list.bench.mjs: 458–665 ms with async reads, 178–190 ms without).
 */
export function summarizeFile(
  path: string,
  cached: IndexEntry | undefined,
): { entry: IndexEntry; summary: SessionSummary | undefined } | undefined {
  let info
  try {
    info = statSync(path)
  } catch (error) {
    // The file went away between readdir and stat (deleted by a person or another process): it is no longer listed.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  if (cached && cached.size === info.size && cached.mtimeMs === info.mtimeMs) {
    return { entry: cached, summary: cached.summary }
  }
  const grew = cached !== undefined && info.size >= cached.size && cached.scannedTo <= info.size
  const state: SummaryState = grew ? structuredClone(cached.state) : emptySummaryState()
  const from = grew ? cached.scannedTo : 0
  const file = openSync(path, 'r')
  try {
    const end = scanLinesSync(file, from, (buffer, start, stop) => {
      const prefix = buffer.toString('latin1', start, Math.min(stop, start + PREFIX_CHARS))
      feedSummary(state, prefix, () => buffer.toString('utf8', start, stop))
    }, info.size)
    const summary = summaryOf(withTail(state, end.tail), info.size)
    const entry: IndexEntry = { size: info.size, mtimeMs: info.mtimeMs, scannedTo: end.completeTo, state }
    if (summary) entry.summary = summary
    return { entry, summary }
  } finally {
    closeSync(file)
  }
}

/** The state including a last line that has no newline yet, when that line is complete JSON. */
function withTail(state: SummaryState, tail: Buffer): SummaryState {
  if (!tail.length) return state
  const text = tail.toString('utf8')
  try {
    JSON.parse(text)
  } catch {
    // A torn last line: the loader drops it, and so does the listing.
    return state
  }
  const copy = structuredClone(state)
  feedSummary(copy, text.slice(0, PREFIX_CHARS), () => text)
  return copy
}

async function readIndex(dir: string): Promise<IndexFile> {
  try {
    const parsed = JSON.parse(await readFile(join(dir, INDEX_FILE), 'utf8')) as IndexFile
    if (parsed.version === INDEX_VERSION && parsed.files && typeof parsed.files === 'object') return parsed
  } catch {
    // A missing, unreadable or damaged index is rebuilt from the session files, which are the truth.
  }
  return { version: INDEX_VERSION, files: {} }
}

/** Writes the index atomically, so a reader never sees half an index. */
async function writeIndex(dir: string, index: IndexFile): Promise<void> {
  try {
    await writeFileAtomic(join(dir, INDEX_FILE), JSON.stringify(index), { mode: 0o600 })
  } catch {
    // The index only saves time: a read-only directory lists correctly, just without the speed-up.
  }
}
