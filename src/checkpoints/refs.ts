import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * The ref layout of a shadow repository (docs/checkpoints.md, "Ref layout").
 *
 * What holds:
 * - Every snapshot a session took is reachable from that session's ref, `refs/rein/sessions/<session id>`, and from
 *   no other session's: a session's snapshots chain only to its own earlier ones, so deleting one ref frees exactly
 *   what no kept session, and not `HEAD`, still shares.
 * - `HEAD` is detached and names the workspace's latest snapshot, whichever session took it: `git status` compares
 *   against it, which is what makes an unchanged snapshot free. It keeps that one snapshot alive after a prune.
 * - `refs/rein/checkpoints` is the layout before per-session refs (one chain for every session of the workspace).
 *   It is never written any more; its snapshots stay restorable until retention removes the whole chain at once.
 */

/** The ref of the single chain repositories had before per-session refs. */
export const LEGACY_REF = 'refs/rein/checkpoints'

/** Where per-session refs live. */
export const SESSION_REFS = 'refs/rein/sessions/'

/** A session id that can name a ref and a file: letters, digits, `.`, `_` and `-`; no `..`, no leading dot. */
const SAFE_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/

export function isSafeSessionId(id: string): boolean {
  return SAFE_ID.test(id) && !id.includes('..') && !id.endsWith('.lock')
}

/** The ref that keeps a session's snapshots; refuses an id that could name anything outside `refs/rein/sessions/`. */
export function sessionRef(sessionId: string): string {
  if (!isSafeSessionId(sessionId)) {
    throw new Error(`session id ${JSON.stringify(sessionId)} cannot name a checkpoint ref (letters, digits, ".", "_" and "-" only)`)
  }
  return SESSION_REFS + sessionId
}

const OBJECT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/

/**
 * The commit a detached `HEAD` names, read from the file (no git process: this runs on every snapshot); null when
 * `HEAD` is symbolic (a new repository, or the legacy layout) or unreadable.
 */
export function detachedHead(gitDir: string): string | null {
  return readObjectId(join(gitDir, 'HEAD'))
}

/** The commit a loose ref file holds, or null when the ref is packed, missing or unreadable (ask git then). */
export function looseRef(gitDir: string, ref: string): string | null {
  return readObjectId(join(gitDir, ref))
}

function readObjectId(file: string): string | null {
  let text: string
  try {
    text = readFileSync(file, 'utf8').trim()
  } catch {
    // Missing or unreadable: the caller falls back to asking git, which reports real damage itself.
    return null
  }
  return OBJECT_ID.test(text) ? text : null
}
