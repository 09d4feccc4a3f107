import { createHash } from 'node:crypto'

/** The shape Claude Code's message types demand of `uuid` (Node's `crypto.UUID`). */
export type Uuid = `${string}-${string}-${string}-${string}-${string}`

/** Rein's namespace for name-based ids; fixed forever, so the same log always prints the same ids. */
const NAMESPACE = Buffer.from('9533ab3c1d174bcfa5795f6e766bb031', 'hex')

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** A version-5 (SHA-1, name-based) UUID of `name` in Rein's namespace: stable across runs and readers of the log. */
export function nameUuid(name: string): Uuid {
  const hash = createHash('sha1').update(NAMESPACE).update(name).digest()
  hash[6] = (hash[6] & 0x0f) | 0x50
  hash[8] = (hash[8] & 0x3f) | 0x80
  const hex = hash.subarray(0, 16).toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`
}

/**
 * The `uuid` of the line that shows the event at `seq`. An input message keeps its own id when that id is a UUID (the
 * id RPC and SDK clients already saw); every other event gets the name-based UUID of `<session id>#<seq>`.
 */
export function eventUuid(sessionId: string, seq: number, ownId?: string): Uuid {
  if (ownId !== undefined && UUID_SHAPE.test(ownId)) return ownId as Uuid
  return nameUuid(`${sessionId}#${seq}`)
}
