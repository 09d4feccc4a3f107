import { lstatSync, readFileSync, readlinkSync, realpathSync } from 'node:fs'
import { dirname, isAbsolute, resolve } from 'node:path'
import { isInside } from '../tools/paths.js'
import { shadowGit, type ShadowGit } from './shadow-git.js'

/**
 * One version of a file as a front end may show it: its text, or why there is none. A symlink's text is its target.
 * `binary` is content with a NUL byte in its first 8 KiB (what git itself calls binary); `too-large` is over the cap
 * the caller gave.
 */
export type FileVersion =
  | { kind: 'text'; text: string }
  | { kind: 'absent' }
  | { kind: 'binary'; bytes: number }
  | { kind: 'too-large'; bytes: number }

/** How many leading bytes are looked at for a NUL to call content binary (git looks at the same 8 KiB). */
const BINARY_PROBE = 8000

function versionOf(content: Buffer): FileVersion {
  if (content.subarray(0, BINARY_PROBE).includes(0)) return { kind: 'binary', bytes: content.length }
  return { kind: 'text', text: content.toString('utf8') }
}

/**
 * Reads files as a snapshot in the shadow repository holds them (`gitDir` from `Checkpoints.gitDir`). Read-only: it
 * never stages, commits or touches the workspace, so it is safe beside a running agent's engine.
 */
export class SnapshotFiles {
  private readonly git: ShadowGit

  constructor(
    gitDir: string,
    private readonly cwd: string,
  ) {
    this.git = shadowGit({ gitDir, workTree: resolve(cwd) })
  }

  /** The versions of `paths` in `commit`, each `absent` when the snapshot does not hold it; blobs over `maxBytes` are not read. */
  async at(commit: string, paths: readonly string[], maxBytes: number): Promise<Map<string, FileVersion>> {
    const found = new Map<string, FileVersion>()
    // A snapshot holds only workspace-relative paths: anything else a log names (`../x`, `/etc/x`) is not in it.
    const inside = paths.filter(isRelativeInside)
    if (!inside.length) {
      for (const path of paths) found.set(path, { kind: 'absent' })
      return found
    }
    const listing = await this.git(['ls-tree', '-z', '-l', commit, '--', ...inside.map((p) => `:(literal)${p}`)], undefined, true)
    const blobs: { path: string; object: string }[] = []
    for (const record of listing.toString('utf8').split('\0')) {
      // `<mode> <type> <object> <size>\t<path>`; the size is right-aligned with spaces.
      const match = /^(\d+) (\w+) ([0-9a-f]+)\s+(\d+|-)\t([\s\S]*)$/.exec(record)
      if (!match || match[2] !== 'blob') continue
      const bytes = Number(match[4])
      if (bytes > maxBytes) found.set(match[5], { kind: 'too-large', bytes })
      else blobs.push({ path: match[5], object: match[3] })
    }
    const contents = blobs.length ? readBatch(await this.git(['cat-file', '--batch'], blobs.map((b) => `${b.object}\n`).join(''), true)) : []
    blobs.forEach((blob, i) => found.set(blob.path, contents[i] ? versionOf(contents[i]) : { kind: 'absent' }))
    for (const path of paths) if (!found.has(path)) found.set(path, { kind: 'absent' })
    return found
  }

  /**
   * The version of `path` in the workspace now. A path that leads outside the workspace (through `..` or a linked
   * directory) reads as `absent`: a log names paths, and a hostile one must not make a front end show other files.
   */
  inWorkspace(path: string, maxBytes: number): FileVersion {
    const root = resolve(this.cwd)
    const full = resolve(root, path)
    if (!isInside(full, root) || full === root) return { kind: 'absent' }
    try {
      const realRoot = realpathSync(root)
      if (!isInside(realpathSync(dirname(full)), realRoot)) return { kind: 'absent' }
      const stat = lstatSync(full)
      if (stat.isSymbolicLink()) return { kind: 'text', text: readlinkSync(full) }
      if (!stat.isFile()) return { kind: 'absent' }
      if (stat.size > maxBytes) return { kind: 'too-large', bytes: stat.size }
      return versionOf(readFileSync(full))
    } catch {
      // Gone (or unreadable) since the step listed it: for a diff it is as good as deleted.
      return { kind: 'absent' }
    }
  }
}

/** A path relative to the workspace that stays inside it: not absolute, no `..` segment, not empty. */
function isRelativeInside(path: string): boolean {
  if (!path || isAbsolute(path)) return false
  return !path.split(/[\\/]/).includes('..')
}

/**
 * The contents in `git cat-file --batch` output, in request order: each object is `<id> <type> <size>\n`, its bytes
 * and a newline; an object git cannot find is `<id> missing\n` (undefined here).
 */
function readBatch(out: Buffer): (Buffer | undefined)[] {
  const contents: (Buffer | undefined)[] = []
  let at = 0
  while (at < out.length) {
    const end = out.indexOf(0x0a, at)
    if (end < 0) break
    const header = out.subarray(at, end).toString('utf8').split(' ')
    if (header[1] === 'missing' || header.length < 3) {
      contents.push(undefined)
      at = end + 1
      continue
    }
    const size = Number(header[2])
    contents.push(out.subarray(end + 1, end + 1 + size))
    at = end + 1 + size + 1
  }
  return contents
}
