import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { PRIVATE_FILE, writeFileAtomicSync } from '../fs/atomic-write.js'

/**
 * One trusted workspace. `hash` covers every grant that was shown when the user trusted it (see `grantsHash`);
 * `grants` repeats their labels for a person reading the file. Only the hash counts.
 */
export interface TrustRecord {
  hash: string
  trustedAt: string
  grants: string[]
}

/** `$REIN_HOME/trusted-workspaces.json`: workspace real path → record. Never inside a project. */
interface TrustFile {
  version: 1
  workspaces: Record<string, TrustRecord>
}

export function workspaceTrustPath(home: string): string {
  return join(home, 'trusted-workspaces.json')
}

function readTrustFile(home: string): TrustFile {
  try {
    const parsed = JSON.parse(readFileSync(workspaceTrustPath(home), 'utf8')) as Partial<TrustFile> | null
    const workspaces = parsed?.workspaces
    if (typeof workspaces === 'object' && workspaces !== null && !Array.isArray(workspaces)) return { version: 1, workspaces }
  } catch {
    // Missing or damaged: nothing is trusted. That is the safe reading, and the next `rein trust` rewrites it whole.
  }
  return { version: 1, workspaces: {} }
}

/** Every trusted workspace, by real path. */
export function trustedWorkspaces(home: string): Record<string, TrustRecord> {
  return readTrustFile(home).workspaces
}

export function trustRecord(home: string, dir: string): TrustRecord | undefined {
  const record = readTrustFile(home).workspaces[dir]
  return record && typeof record.hash === 'string' ? record : undefined
}

/** Records (or replaces) the trust of `dir`, keyed by its real path. */
export function storeTrustRecord(home: string, dir: string, record: TrustRecord): void {
  const file = readTrustFile(home)
  file.workspaces[dir] = record
  writeFileAtomicSync(workspaceTrustPath(home), `${JSON.stringify(file, null, 2)}\n`, PRIVATE_FILE)
}

/** Forgets the trust of `dir`. Returns whether there was any. */
export function revokeTrustRecord(home: string, dir: string): boolean {
  const file = readTrustFile(home)
  if (!(dir in file.workspaces)) return false
  delete file.workspaces[dir]
  writeFileAtomicSync(workspaceTrustPath(home), `${JSON.stringify(file, null, 2)}\n`, PRIVATE_FILE)
  return true
}
