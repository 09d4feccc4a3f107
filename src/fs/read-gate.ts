import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, readSync, realpathSync, statSync, type Stats } from 'node:fs'
import { isAbsolute, join, relative, resolve, sep } from 'node:path'

/**
 * The read gate: the one way Rein reads a file nobody asked for by a tool call — instruction files, custom commands,
 * skills, agent files, and every prompt-file loader to come (output styles, plugins). What holds for a file it hands
 * back (DESIGN section 6b):
 * - its real path (every link resolved, including links between the folder's base and the file) lies inside its
 *   folder, so nothing is read through a link to anywhere else;
 * - the read guard refuses neither the path as named nor the real path (a `Read` deny rule, a hard link to a file one
 *   covers, a process's environment);
 * - it is a regular file on disk: not a FIFO, socket, device or directory, not in /proc, /sys or /dev;
 * - the file read is the file checked: it is opened without following a final link and without blocking, and the
 *   opened descriptor's own path is checked again;
 * - at most `maxBytes` were read.
 * Anything else is `skipped` with one clause saying why; a file that is not there is `absent`, with no clause, since
 * most places hold no such file. The gate never throws for what it finds on disk.
 */

/** Why the read guard refuses `absolute` (a clause: "the permission rule Read(~/.ssh/**) covers it"), or undefined. */
export type Refusal = (absolute: string) => string | undefined

/** A loader's folder: where the files it reads must stay. */
export interface GateFolder {
  /** The folder itself, absolute: `<workspace>/.claude/commands`, a skill's folder, `$REIN_HOME`. */
  dir: string
  /**
   * `dir` or a folder above it whose own place is trusted: the workspace root for a repository's folders (so a linked
   * `.claude/commands` leaves it), the folder itself for the user's own (the user may keep them anywhere). Links are
   * resolved for `base` alone; below it the folder is taken as written.
   */
  base: string
}

export type GatedFile =
  | { kind: 'read'; path: string; real: string; bytes: Buffer }
  | { kind: 'absent'; path: string }
  | { kind: 'skipped'; path: string; reason: string }

export interface GateOptions {
  folder: GateFolder
  refuses: Refusal
  /** The most bytes read; a larger file is skipped. Default `PROMPT_FILE_BYTE_CAP`. */
  maxBytes?: number
}

/** The most Rein reads of one file it loads on its own: 1 MiB, far beyond any instruction or command file. */
export const PROMPT_FILE_BYTE_CAP = 1024 * 1024

/** Kernel and device trees: their "files" are views of processes and hardware, never prompt files. */
const PSEUDO_ROOTS = ['/proc', '/sys', '/dev']

/** Reads one file through the gate (see the module comment). */
export function readGated(path: string, options: GateOptions): GatedFile {
  const file = resolve(path)
  const maxBytes = options.maxBytes ?? PROMPT_FILE_BYTE_CAP
  const checked = checkPath(file, options.folder, options.refuses)
  if (checked.kind !== 'ok') return checked
  const { real } = checked
  let fd: number
  try {
    fd = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY)
  } catch (error) {
    return skipped(file, openFailure(error))
  }
  try {
    const info = fstatSync(fd)
    if (!info.isFile()) return skipped(file, notAFile(info))
    const opened = openedPath(fd, real, info)
    if (opened !== real) return skipped(file, 'it changed while Rein opened it')
    if (info.size > maxBytes) return skipped(file, tooLarge(info.size, maxBytes))
    const bytes = readUpTo(fd, maxBytes + 1, info.size)
    if (bytes.length > maxBytes) return skipped(file, tooLarge(bytes.length, maxBytes))
    return { kind: 'read', path: file, real, bytes }
  } catch (error) {
    return skipped(file, `it could not be read (${codeOf(error)})`)
  } finally {
    closeSync(fd)
  }
}

/**
 * Reads a file whose path the permission policy already judged as a `read` call (a custom command's `@path`):
 * the gate without a folder or guard of its own, so it still reads only a regular file, the one checked, never blocking
 * on a pipe, and at most `maxBytes`.
 */
export function readJudgedFile(path: string, maxBytes: number): GatedFile {
  return readGated(path, { folder: { dir: '/', base: '/' }, refuses: () => undefined, maxBytes })
}

/**
 * Reads a configuration file (a project's hook file, `.mcp.json`): the gate's own checks inside `folder` — no link out,
 * a regular file, never blocking, at most the cap — but no read guard, since the model never sees these files' text
 * and a project's are where deny rules come from.
 */
export function readConfigFile(path: string, folder: GateFolder): GatedFile {
  return readGated(path, { folder, refuses: () => undefined })
}

/**
 * Whether a folder a loader walks into (a commands subfolder, a skill's folder) may be listed: `ok` when its real path
 * stays inside `folder` and it is a directory; `absent` when there is no folder there; else `skipped` with the clause.
 */
export function gateDirectory(path: string, folder: GateFolder): { kind: 'ok'; real: string } | { kind: 'absent' } | { kind: 'skipped'; reason: string } {
  const dir = resolve(path)
  const checked = checkPath(dir, folder, () => undefined)
  if (checked.kind === 'absent') return { kind: 'absent' }
  if (checked.kind === 'skipped') return { kind: 'skipped', reason: checked.reason }
  let info: Stats
  try {
    info = statSync(checked.real)
  } catch (error) {
    return { kind: 'skipped', reason: `it could not be read (${codeOf(error)})` }
  }
  // A file where a folder is looked for: no such folder.
  if (!info.isDirectory()) return { kind: 'absent' }
  return { kind: 'ok', real: checked.real }
}

/** The one sentence a loader shows for a skipped file: `The command file .claude/commands/review.md was not read: …`. */
export function skippedNotice(what: string, shown: string, reason: string): string {
  return `The ${what} ${shown} was not read: ${reason}.`
}

/** Where `folder.dir` really is: the real path of its base, then the rest of the folder as written; undefined when the base is missing. */
export function realFolder(folder: GateFolder): string | undefined {
  const base = resolve(folder.base)
  const rest = relative(base, resolve(folder.dir))
  if (rest.startsWith('..') || isAbsolute(rest)) return undefined
  try {
    return join(realpathSync.native(base), rest)
  } catch {
    // No base folder: nothing can be in it.
    return undefined
  }
}

type Checked = { kind: 'ok'; real: string } | { kind: 'absent'; path: string } | { kind: 'skipped'; path: string; reason: string }

/** Every check that needs no open descriptor: the folder, the link, the read guard, the kernel trees. */
function checkPath(file: string, folder: GateFolder, refuses: Refusal): Checked {
  const dir = resolve(folder.dir)
  if (!isWithin(file, dir)) return skipped(file, `it is outside ${dir}`)
  const inside = realFolder(folder)
  if (inside === undefined) return { kind: 'absent', path: file }
  let link: Stats
  try {
    link = lstatSync(file)
  } catch (error) {
    const code = codeOf(error)
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'absent', path: file }
    return skipped(file, `it could not be read (${code})`)
  }
  let real: string
  try {
    real = realpathSync.native(file)
  } catch (error) {
    const code = codeOf(error)
    if (code === 'ELOOP') return skipped(file, 'it is a link that leads back to itself')
    if (link.isSymbolicLink()) return skipped(file, `it is a link to ${linkTarget(file)}, which does not exist`)
    return skipped(file, `it could not be read (${code})`)
  }
  const refusal = refuses(file) ?? (real === file ? undefined : refuses(real))
  if (refusal) return skipped(file, refusal)
  if (PSEUDO_ROOTS.some((root) => isWithin(real, root))) return skipped(file, `it leads to ${real}, which is not a file on disk`)
  if (!isWithin(real, inside)) {
    return skipped(file, link.isSymbolicLink() ? `it is a link to ${real}, outside ${dir}` : `its real path ${real} is outside ${dir} (a folder on the way is a link)`)
  }
  return { kind: 'ok', real }
}

/**
 * The path the kernel has for the open descriptor (`/proc/self/fd`), which no swap of a folder for a link can fake;
 * where that is not available, `real` itself when it still names the same file (device and inode), else ''.
 */
function openedPath(fd: number, real: string, info: Stats): string {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`)
  } catch {
    // No /proc (not Linux): fall back to comparing the file the path names now with the one opened.
  }
  try {
    const now = statSync(real)
    return now.dev === info.dev && now.ino === info.ino ? real : ''
  } catch {
    // Gone since it was opened: not the file that was checked.
    return ''
  }
}

/** Reads at most `limit` bytes, in one read when the file is still `size` bytes long (one more byte shows growth). */
function readUpTo(fd: number, limit: number, size: number): Buffer {
  const chunks: Buffer[] = []
  let total = 0
  let want = Math.min(limit, size + 1)
  while (total < limit) {
    const buffer = Buffer.allocUnsafe(want)
    const n = readSync(fd, buffer, 0, want, null)
    if (n === 0) break
    chunks.push(n === want ? buffer : buffer.subarray(0, n))
    total += n
    want = Math.min(limit - total, 64 * 1024)
  }
  return Buffer.concat(chunks, total)
}

function notAFile(info: Stats): string {
  if (info.isDirectory()) return 'it is a directory, not a file'
  if (info.isFIFO()) return 'it is a named pipe (FIFO), not a file'
  if (info.isSocket()) return 'it is a socket, not a file'
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'it is a device, not a file'
  return 'it is not a regular file'
}

function openFailure(error: unknown): string {
  const code = codeOf(error)
  if (code === 'ELOOP') return 'it changed into a link while Rein opened it'
  if (code === 'ENXIO') return 'it is a socket, not a file'
  return `it could not be read (${code})`
}

function tooLarge(size: number, max: number): string {
  return `it is ${size} bytes, more than the ${max} Rein reads of such a file`
}

function linkTarget(file: string): string {
  try {
    return readlinkSync(file)
  } catch {
    // Replaced since lstat: say so without a target.
    return 'a path'
  }
}

function skipped(path: string, reason: string): { kind: 'skipped'; path: string; reason: string } {
  return { kind: 'skipped', path, reason }
}

function isWithin(inner: string, outer: string): boolean {
  return inner === outer || inner.startsWith(outer.endsWith(sep) ? outer : outer + sep)
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? String(error)
}
