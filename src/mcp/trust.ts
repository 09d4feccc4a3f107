import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { canonicalJson, sha256 } from '../trust/canonical.js'
import { PRIVATE_FILE, writeFileAtomicSync } from '../fs/atomic-write.js'

/**
 * Trust for project `.mcp.json` servers. A repository can name any program as an MCP server, so a server defined by
 * the project runs only after the user has trusted that exact definition. Trust is stored under REIN_HOME, never in
 * the project: `trusted-mcp.json` maps a project directory to `{server name: sha256 of its definition}`. Editing a
 * definition changes its hash and withdraws trust until `rein mcp trust` is run again.
 */
interface TrustFile {
  version: 1
  projects: Record<string, Record<string, string>>
}

export function trustFilePath(home: string): string {
  return join(home, 'trusted-mcp.json')
}

/** The hash trust is keyed on: the raw definition as written, before `${VAR}` expansion, keys sorted (so reformatting keeps trust). */
export function definitionHash(raw: unknown): string {
  return sha256(canonicalJson(raw))
}

function readTrust(home: string): TrustFile {
  try {
    const parsed = JSON.parse(readFileSync(trustFilePath(home), 'utf8')) as Partial<TrustFile>
    if (parsed && typeof parsed.projects === 'object' && parsed.projects !== null) return { version: 1, projects: parsed.projects }
  } catch {
    // A missing or unreadable trust file means nothing is trusted yet; the next `rein mcp trust` rewrites it.
  }
  return { version: 1, projects: {} }
}

/** The trusted hashes of one project's servers. */
export function trustedServers(home: string, cwd: string): Record<string, string> {
  return readTrust(home).projects[resolve(cwd)] ?? {}
}

/** Records the given definitions as trusted for the project, replacing what was trusted before. Owner-only file. */
export function storeTrust(home: string, cwd: string, definitions: Record<string, unknown>): void {
  const trust = readTrust(home)
  trust.projects[resolve(cwd)] = Object.fromEntries(
    Object.entries(definitions).map(([name, raw]) => [name, definitionHash(raw)]),
  )
  writeFileAtomicSync(trustFilePath(home), JSON.stringify(trust, null, 2) + '\n', PRIVATE_FILE)
}
