import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'

/**
 * Which sessions the page's list hides by default, kept in `$REIN_HOME/web/archived.json` (`{"ids": [...]}`).
 * Archiving is how one person files their list, not part of a conversation, so it is not logged: a running session
 * can be archived, and nothing a model sees changes. One file per home; the set holds ids only, never paths.
 */
export class ArchivedSessions {
  private readonly file: string
  private ids: Set<string> | undefined

  constructor(home: string) {
    this.file = join(home, 'web', 'archived.json')
  }

  has(id: string): boolean {
    return this.load().has(id)
  }

  /** Archives (`true`) or brings back (`false`) a session; written at once, replacing the file whole. */
  set(id: string, archived: boolean): void {
    const ids = this.load()
    if (archived === ids.has(id)) return
    if (archived) ids.add(id)
    else ids.delete(id)
    mkdirSync(dirname(this.file), { recursive: true })
    const temporary = `${this.file}.${process.pid}.tmp`
    writeFileSync(temporary, `${JSON.stringify({ ids: [...ids].sort() })}\n`)
    renameSync(temporary, this.file)
  }

  private load(): Set<string> {
    if (this.ids) return this.ids
    let ids: unknown
    try {
      ids = (JSON.parse(readFileSync(this.file, 'utf8')) as { ids?: unknown }).ids
    } catch {
      // No file yet (nothing archived), or one a person broke by hand: start from an empty set, which the next
      // archive overwrites.
      ids = []
    }
    this.ids = new Set(Array.isArray(ids) ? ids.filter((i): i is string => typeof i === 'string') : [])
    return this.ids
  }
}
