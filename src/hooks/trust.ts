import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { PRIVATE_FILE, writeFileAtomicSync } from '../fs/atomic-write.js'
import type { HookDefinition } from './definitions.js'

/**
 * Trust for project hooks. A repository can name any program as a hook, so a project definition runs only after
 * the user has trusted that exact definition. `$REIN_HOME/trusted-hooks.json` records the hash of each trusted
 * definition (its file path, event, matcher, command and timeout); editing any of those changes the hash, and the
 * definition is untrusted again until `rein hooks trust`. What is recorded beside the hash is for people reading
 * the file; only the hash counts.
 */
interface TrustFile {
  version: 1
  hooks: Record<string, { file: string; event: string; command: string; trustedAt: string }>
}

export function trustFilePath(home: string): string {
  return join(home, 'trusted-hooks.json')
}

function readTrust(home: string): TrustFile {
  let text: string
  try {
    text = readFileSync(trustFilePath(home), 'utf8')
  } catch {
    // No trust file yet (or none readable): nothing is trusted, and the next trust writes a fresh one.
    return { version: 1, hooks: {} }
  }
  try {
    const parsed = JSON.parse(text) as Partial<TrustFile>
    if (typeof parsed.hooks === 'object' && parsed.hooks !== null && !Array.isArray(parsed.hooks)) {
      return { version: 1, hooks: parsed.hooks }
    }
  } catch {
    // A damaged trust file trusts nothing; that is the safe reading, and trusting again rewrites it whole.
  }
  return { version: 1, hooks: {} }
}

/** The hashes of every trusted definition. */
export function trustedHashes(home: string): Set<string> {
  return new Set(Object.keys(readTrust(home).hooks))
}

/** Adds the definitions to the trusted set, keeping what was trusted before. The file is owner-only. */
export function recordTrust(home: string, definitions: readonly HookDefinition[]): void {
  if (definitions.length === 0) return
  const trust = readTrust(home)
  const now = new Date().toISOString()
  for (const definition of definitions) {
    trust.hooks[definition.hash] = { file: definition.file.path, event: definition.event, command: definition.command, trustedAt: now }
  }
  writeFileAtomicSync(trustFilePath(home), JSON.stringify(trust, null, 2) + '\n', PRIVATE_FILE)
}
