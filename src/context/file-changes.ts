import { stat } from 'node:fs/promises'
import { isAbsolute, relative, sep } from 'node:path'
import type { EnteringMessage, Extension } from '../agent/extensions.js'
import { feedFor, type FeedMark, type SharedFeed } from '../fs/change-feed.js'
import type { JsonValue } from '../session/events.js'
import { hashFile } from '../tools/file-versions.js'
import type { FileVersion } from '../tools/tool.js'
import { ProducedIndex } from './produced-messages.js'
import { escapeReminderText, systemReminder } from './reminder.js'

/** The `source.kind` of every message this producer writes. */
export const FILE_CHANGES = 'file-changes'

/**
 * Paths one reminder lists at most; the rest are counted in one line. Cache cost: the reminder is a new message at the
 * end of the prompt, so its size is paid once uncached and then cached — the cap keeps 1,000 changed files from
 * costing ~9K tokens (35 KB, issue 36) when the model only needs to know to read before editing.
 */
export const FILE_CHANGES_MAX_LISTED = 40

/** One file that is no longer the version the model last read or wrote: its size and mtime now, or deleted. */
export type FileChange = { path: string; size: number; mtimeMs: number } | { path: string; deleted: true }

/**
 * The file-changes producer: before every step it tells the model which files it has read or written (the tools'
 * version records, `src/tools/file-versions.ts`) changed on disk since — a PostToolUse formatter, a command, the
 * user in an editor — so the model reads them again instead of having its next `edit` refused as stale.
 *
 * The files are checked only when one could have changed (a turn's first step, or after a step with a tool that can
 * write); then each recorded file costs one `stat`. The text lists at most FILE_CHANGES_MAX_LISTED paths.
 *
 * Each change is told once: the producer's own messages on the surface (and entering) record every version they
 * announced in `meta`, and a version announced there is not announced again. A check costs one `stat` per
 * recorded file; a file is hashed only when its mtime moved and its size did not (a touch, or a rewrite
 * to the same length), and that verdict is remembered for that mtime.
 */
export function fileChanges(files: ReadonlyMap<string, FileVersion>): Extension {
  /** Paths whose bytes were hashed and found unchanged at this mtime: not hashed again until the mtime moves. */
  const sameBytesAt = new Map<string, number>()
  const produced = new ProducedIndex(FILE_CHANGES)
  // Whether a file could have changed since the last check: at a turn's first step (the user had the tree), and after a
  // step whose tools could write (as each tool declares itself). A read-only step costs no stat at all.
  let mayHaveChanged = true
  /** The change feed's mark taken just before the last check's stats (src/fs/change-feed.ts). */
  let checkedAt: FeedMark | undefined
  /** Each recorded path's place in the feed's tree (relative, `/`-separated), or null where the feed does not cover it. */
  const placed = new Map<string, string | null>()
  let placedFor: SharedFeed | undefined
  return {
    name: FILE_CHANGES,
    event: (event, agent) => produced.observe(event, agent),
    postTool(call) {
      if (!call.tool?.readOnly) mayHaveChanged = true
    },
    async preStep(step, entering, agent) {
      if (step.step === 1) mayHaveChanged = true
      if (!files.size || !mayHaveChanged) return
      mayHaveChanged = false
      const told = toldVersions(produced.messages(agent, entering).map((m) => m.meta))
      // With a change feed for the workspace (the checkpoints start one), a file it covers is looked at only when the
      // feed saw a write to it since the last check: O(changed files). Any other file, or a feed unsure of the paths,
      // costs one stat each, as before.
      const shared = feedFor(agent.cwd)
      // The new mark first: a write landing while the old one is read is then in both, never in neither.
      const mark = shared ? await shared.feed.mark() : undefined
      const since = shared ? await shared.feed.changedSince(checkedAt) : undefined
      checkedAt = mark
      if (shared !== placedFor) placed.clear()
      placedFor = shared
      const toCheck = since && shared ? [...files].filter(([path]) => mayHaveMoved(placeOf(placed, path, agent.cwd, shared), since)) : [...files]
      const checked = await Promise.all(toCheck.map(([path, seen]) => changeOf(path, seen, sameBytesAt)))
      const changes = checked.filter((c): c is FileChange => c !== null && !told.has(versionKey(c)))
      if (!changes.length) return
      const message: EnteringMessage = {
        type: 'context/message',
        content: [{ type: 'text', text: fileChangesText(changes, agent.cwd) }],
        source: { kind: FILE_CHANGES },
        meta: { files: changes as unknown as JsonValue },
      }
      return { action: 'enter', messages: [...entering, message] }
    },
  }
}

/** The exact block the model reads for a set of changes. Paths inside `cwd` are shown relative to it. */
export function fileChangesText(changes: readonly FileChange[], cwd: string): string {
  const lines = changes
    .slice(0, FILE_CHANGES_MAX_LISTED)
    .map((c) => `- ${escapeReminderText(shownPath(c.path, cwd))}${'deleted' in c ? ' (deleted)' : ''}`)
  if (changes.length > FILE_CHANGES_MAX_LISTED) {
    lines.push(`- and ${changes.length - FILE_CHANGES_MAX_LISTED} more files; run \`git status\` or read a file to see whether it changed.`)
  }
  return systemReminder(
    [
      'These files changed on disk since you last read or wrote them (a hook, a formatter, a command, or the user changed them).',
      'Your earlier view of them is out of date: read a file again before you edit it.',
      ...lines,
    ].join('\n'),
  )
}

/** Where a recorded path lies in the feed's tree, or null where the feed does not cover it; computed once per path. */
function placeOf(placed: Map<string, string | null>, path: string, cwd: string, shared: SharedFeed): string | null {
  let place = placed.get(path)
  if (place !== undefined) return place
  // A prefix test, not `relative` (which resolves both paths: most of the check's cost at 2,000 files).
  const rel = path.startsWith(cwd + sep) ? path.slice(cwd.length + 1) : undefined
  const inner = rel === undefined ? undefined : sep === '/' ? rel : rel.split(sep).join('/')
  place = inner !== undefined && shared.covers(inner) ? inner : null
  placed.set(path, place)
  return place
}

/**
 * Whether a recorded file needs its stat: outside what the feed covers, or named by the feed (the file itself, or a
 * directory above it that was created, removed or moved).
 */
function mayHaveMoved(place: string | null, since: ReadonlySet<string>): boolean {
  if (place === null) return true
  for (let at = place.length; at > 0; at = place.lastIndexOf('/', at - 1)) if (since.has(place.slice(0, at))) return true
  return false
}

/** The change of one recorded file, or null when it is still the version the model saw (or cannot be checked). */
async function changeOf(path: string, seen: FileVersion, sameBytesAt: Map<string, number>): Promise<FileChange | null> {
  let now: { size: number; mtimeMs: number; isFile(): boolean }
  try {
    now = await stat(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { path, deleted: true }
    // Unreadable metadata (permissions changed, a path component became a file): the tool that opens the file
    // next reports the real error, so a reminder would only guess.
    return null
  }
  if (now.size === seen.size && now.mtimeMs === seen.mtimeMs) return null
  // Only a regular file is hashed: opening a named pipe put in the file's place would wait for a writer forever.
  if (now.size === seen.size && now.isFile()) {
    if (sameBytesAt.get(path) === now.mtimeMs) return null
    try {
      if ((await hashFile(path)) === seen.sha256) {
        sameBytesAt.set(path, now.mtimeMs)
        return null
      }
    } catch {
      // The file vanished or became unreadable between stat and read: count it as changed, which is what it is.
    }
  }
  return { path, size: now.size, mtimeMs: now.mtimeMs }
}

/** Every version the producer's earlier messages announced, as keys. */
function toldVersions(metas: readonly (JsonValue | undefined)[]): Set<string> {
  const told = new Set<string>()
  for (const meta of metas) {
    const listed = (meta as { files?: unknown } | undefined)?.files
    if (!Array.isArray(listed)) continue
    for (const change of listed as FileChange[]) told.add(versionKey(change))
  }
  return told
}

function versionKey(change: FileChange): string {
  return 'deleted' in change ? `${change.path}\0deleted` : `${change.path}\0${change.size}\0${change.mtimeMs}`
}

function shownPath(path: string, cwd: string): string {
  const rel = relative(cwd, path)
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path
}
