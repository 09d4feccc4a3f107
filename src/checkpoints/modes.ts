import { existsSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync, type Stats } from 'node:fs'
import { join } from 'node:path'

/**
 * Full permission bits of the files a snapshot holds (docs/checkpoints.md, "Modes"). Git keeps only 644 or 755, so a
 * 0600 `.env` would come back 0644; the snapshot commit's message carries the rest.
 *
 * What holds:
 * - Each shadow repository has defaults, fixed when the manifest is first made (from the creating process's umask:
 *   `0666 & ~umask` for files, `0777 & ~umask` for executables). A file whose bits are its default is not listed.
 * - The manifest of the index (`rein-modes` in the shadow repository) follows every staging: each path `git status`
 *   reports is looked at (its size already was), and its bits recorded or dropped. It is written before `git add`,
 *   so a staging that fails leaves entries for paths the next status reports again.
 * - Each snapshot commit's message ends with the manifest at that moment (`Modes: <file> <exec>`, then one
 *   `Mode: <octal> <JSON path>` line per listed file). A restore gives each file it writes exactly those bits; a
 *   commit without the block (written before this existed) gets git's own `0666`/`0777` minus the umask.
 * - A change of permission bits alone (`chmod 600` of an unchanged file, the executable bit untouched) is not seen
 *   by `git status`; it is recorded when the file's content next changes, and for the paths a rewind is about to
 *   write, just before the rewind's `before` snapshot (`Checkpoints.snapshot(message, { modesOf })`).
 */

export const MODES_FILE = 'rein-modes'

export interface ModeDefaults {
  file: number
  exec: number
}

/** A snapshot's modes as its commit message records them. */
export interface CommitModes extends ModeDefaults {
  entries: Map<string, number>
}

/** The manifest of the shadow index, persisted beside it. */
export class ModeManifest {
  private readonly file: string
  private defaults: ModeDefaults | undefined
  private entries = new Map<string, number>()
  /** What this process changed since the file was read: merged into a newer file another process wrote. */
  private delta = new Map<string, number | null>()
  private stamp = ''

  constructor(gitDir: string) {
    this.file = join(gitDir, MODES_FILE)
  }

  /** Whether the repository has a manifest (older ones are given one by `Checkpoints` from a full listing). */
  exists(): boolean {
    return existsSync(this.file)
  }

  /** Starts an empty manifest with the defaults of this process's umask. */
  create(): void {
    const mask = currentUmask()
    this.defaults = { file: 0o666 & ~mask, exec: 0o777 & ~mask }
    this.entries = new Map()
    this.delta = new Map()
    this.stamp = ''
  }

  /** Reads the file again when another process changed it. */
  refresh(): void {
    const stamp = stampOf(this.file)
    if (stamp === this.stamp && this.defaults) return
    const read = readManifest(this.file)
    if (!read) {
      if (!this.defaults) this.create()
      return
    }
    this.defaults = { file: read.file, exec: read.exec }
    this.entries = read.entries
    for (const [path, mode] of this.delta) mode === null ? this.entries.delete(path) : this.entries.set(path, mode)
    this.stamp = stamp
  }

  /** Records what `path` is now: a regular file's bits (listed only when not its default), or nothing. */
  note(path: string, stat: Stats | undefined): void {
    this.refresh()
    const defaults = this.defaults as ModeDefaults
    let mode: number | null = null
    if (stat?.isFile()) {
      const bits = stat.mode & 0o7777
      if (bits !== (bits & 0o100 ? defaults.exec : defaults.file)) mode = bits
    }
    const had = this.entries.get(path)
    if ((had ?? null) === mode) return
    if (mode === null) this.entries.delete(path)
    else this.entries.set(path, mode)
    this.delta.set(path, mode)
  }

  /** Writes the manifest if anything changed (a temporary file renamed over, so a reader never sees half of it). */
  save(): void {
    if (!this.delta.size && this.stamp) return
    // Another process may have written meanwhile: its entries stay, this process's changes go on top.
    const fresh = this.stamp !== stampOf(this.file)
    if (fresh) {
      this.stamp = ''
      this.refresh()
    }
    const text = serialize(this.defaults as ModeDefaults, this.entries)
    const temp = `${this.file}.${process.pid}.tmp`
    try {
      writeFileSync(temp, text)
      renameSync(temp, this.file)
    } catch (error) {
      try {
        unlinkSync(temp)
      } catch {
        // Never written: nothing to remove.
      }
      throw error
    }
    this.stamp = stampOf(this.file)
    this.delta.clear()
  }

  /** The block a snapshot commit's message ends with. */
  block(): string {
    this.refresh()
    const defaults = this.defaults as ModeDefaults
    const lines = [`Modes: ${octal(defaults.file)} ${octal(defaults.exec)}`]
    for (const path of [...this.entries.keys()].sort()) lines.push(`Mode: ${octal(this.entries.get(path) as number)} ${JSON.stringify(path)}`)
    return lines.join('\n')
  }
}

/** The modes a snapshot commit's message records, or undefined for a commit written before modes were kept. */
export function commitModes(message: string): CommitModes | undefined {
  let found: CommitModes | undefined
  for (const line of message.split('\n')) {
    const head = /^Modes: ([0-7]{3,4}) ([0-7]{3,4})$/.exec(line)
    if (head) {
      found = { file: parseInt(head[1], 8), exec: parseInt(head[2], 8), entries: new Map() }
      continue
    }
    const entry = /^Mode: ([0-7]{3,4}) (".*")$/.exec(line)
    if (entry && found) {
      try {
        found.entries.set(JSON.parse(entry[2]) as string, parseInt(entry[1], 8))
      } catch {
        // A damaged line names no path: that file gets its default.
      }
    }
  }
  return found
}

/** The permission bits a restore gives `path`, stored by git as `gitMode` (100644 or 100755). */
export function restoreBits(modes: CommitModes | undefined, path: string, gitMode: string): number {
  const exec = gitMode === '100755'
  if (modes) return modes.entries.get(path) ?? (exec ? modes.exec : modes.file)
  const mask = currentUmask()
  return (exec ? 0o777 : 0o666) & ~mask
}

function serialize(defaults: ModeDefaults, entries: Map<string, number>): string {
  const lines = [`rein-modes 1 ${octal(defaults.file)} ${octal(defaults.exec)}`]
  for (const [path, mode] of entries) lines.push(`${octal(mode)} ${JSON.stringify(path)}`)
  return lines.join('\n') + '\n'
}

function readManifest(file: string): CommitModes | undefined {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    // No manifest yet: the caller starts one.
    return undefined
  }
  const [head, ...rest] = text.split('\n')
  const match = /^rein-modes 1 ([0-7]+) ([0-7]+)$/.exec(head)
  if (!match) return undefined
  const entries = new Map<string, number>()
  for (const line of rest) {
    const entry = /^([0-7]+) (".*")$/.exec(line)
    if (!entry) continue
    try {
      entries.set(JSON.parse(entry[2]) as string, parseInt(entry[1], 8))
    } catch {
      // A damaged line: that path reads as having its default.
    }
  }
  return { file: parseInt(match[1], 8), exec: parseInt(match[2], 8), entries }
}

function stampOf(file: string): string {
  try {
    const s = statSync(file)
    return `${s.ino}:${s.size}:${s.mtimeMs}`
  } catch {
    // No file: the empty stamp.
    return ''
  }
}

function octal(mode: number): string {
  return mode.toString(8).padStart(3, '0')
}

let umask: number | undefined

/** This process's umask, read without changing it (Linux `/proc`), else from `process.umask()`. */
function currentUmask(): number {
  if (umask !== undefined) return umask
  try {
    const match = /^Umask:\s*([0-7]+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))
    if (match) return (umask = parseInt(match[1], 8))
  } catch {
    // Not Linux: Node's own call reads it.
  }
  return (umask = process.umask())
}
