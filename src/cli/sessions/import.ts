import { createReadStream } from 'node:fs'
import { createInterface } from 'node:readline'
import type { SessionHeader } from '../../session/events.js'
import { readSessionLog } from '../../session/load.js'
import { SessionError } from '../../store/errors.js'
import { MemoryStore } from '../../store/memory-store.js'
import type { SessionStore } from '../../store/store.js'

/** Records per store write while importing: large enough for few round trips, small enough to stay light. */
const IMPORT_CHUNK = 1000

/**
 * Imports one session from JSONL (the form `rein sessions export` writes): checks it as a load would (header,
 * contiguous seqs, known types, surface ops), then writes the very same lines, byte for byte, into `store` as a new
 * session with the same id. A torn last line is dropped and reported. Nothing is written when the check fails or
 * the id already exists. Returns the id and what was dropped.
 */
export async function importSession(
  store: SessionStore,
  source: { path: string; input?: NodeJS.ReadableStream },
): Promise<{ id: string; events: number; tornLine?: number }> {
  const lines: string[] = []
  const input = source.input ?? createReadStream(source.path, { encoding: 'utf8' })
  try {
    for await (const line of createInterface({ input, crlfDelay: Infinity })) if (line !== '') lines.push(line)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const why = code === 'ENOENT' ? 'it does not exist' : code === 'EISDIR' ? 'it is a directory' : (error as Error).message
    throw new SessionError('unreadable', `cannot read ${source.path}: ${why}; pass a file written by rein sessions export.`)
  }
  if (!lines.length) throw new SessionError('damaged', `${source.path} is empty; pass a file written by rein sessions export.`)
  const id = headerId(lines[0], source.path)
  const scratch = new MemoryStore()
  scratch.lines.set(id, lines)
  const checker: Pick<SessionStore, 'read' | 'location'> = {
    read: (sessionId, sink) => scratch.read(sessionId, sink),
    location: async () => source.path,
  }
  const log = await readSessionLog(checker as SessionStore, id).catch((error: unknown) => {
    if (error instanceof SessionError) {
      throw new SessionError(error.code, error.message.replace(`memory:${id}`, source.path))
    }
    throw error
  })
  const records = lines.slice(1, log.end.records)
  const writer = await store.create(log.header)
  try {
    for (let i = 0; i < records.length; i += IMPORT_CHUNK) await writer.write(records.slice(i, i + IMPORT_CHUNK))
  } finally {
    await writer.close()
  }
  return { id, events: records.length, ...(log.end.torn ? { tornLine: log.end.torn.line } : {}) }
}

function headerId(line: string, path: string): string {
  let header: Partial<SessionHeader>
  try {
    header = JSON.parse(line) as Partial<SessionHeader>
  } catch {
    throw new SessionError('damaged', `${path} line 1 is not valid JSON, so it is not a session export; pass a file written by rein sessions export.`)
  }
  if (header === null || typeof header !== 'object' || header.type !== 'session' || typeof header.id !== 'string') {
    throw new SessionError('damaged', `${path} line 1 is not a session header; pass a JSONL file written by rein sessions export.`)
  }
  if (!/^[A-Za-z0-9][A-Za-z0-9-]*$/.test(header.id)) {
    throw new SessionError('damaged', `${path} names the session id ${JSON.stringify(header.id.slice(0, 60))}, which holds characters an id may not; ids hold only letters, digits and dashes.`)
  }
  return header.id
}
