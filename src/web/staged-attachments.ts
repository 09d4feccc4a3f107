import { randomUUID } from 'node:crypto'
import type { Attachment } from './attachment-files.js'

/** Most files one session holds staged (uploaded, not yet sent); the oldest goes first beyond it. */
export const STAGED_PER_SESSION = 20

/** Most sessions with files staged at once (at most 20 × 5 MiB each); the one staged into longest ago goes first. */
export const STAGING_SESSIONS = 32

/**
 * Files the page uploaded for a prompt it has not sent yet, kept in memory per session under a random id. A prompt
 * takes the ones it names; nothing is written to disk, so an upload's name never becomes a path.
 */
export class StagedAttachments {
  private readonly bySession = new Map<string, Map<string, Attachment>>()

  add(session: string, attachment: Attachment): string {
    const staged = this.bySession.get(session) ?? new Map<string, Attachment>()
    this.bySession.delete(session)
    this.bySession.set(session, staged)
    while (this.bySession.size > STAGING_SESSIONS) this.bySession.delete(this.bySession.keys().next().value as string)
    const id = randomUUID()
    staged.set(id, attachment)
    while (staged.size > STAGED_PER_SESSION) staged.delete(staged.keys().next().value as string)
    return id
  }

  remove(session: string, id: string): boolean {
    return this.bySession.get(session)?.delete(id) ?? false
  }

  /** The attachments `ids` name, or the first id no longer staged. */
  take(session: string, ids: readonly string[]): { attachments: Attachment[] } | { missing: string } {
    const staged = this.bySession.get(session)
    const found: Attachment[] = []
    for (const id of ids) {
      const a = staged?.get(id)
      if (!a) return { missing: id }
      found.push(a)
    }
    for (const id of ids) staged?.delete(id)
    return { attachments: found }
  }
}
