import { createHash } from 'node:crypto'
import { statSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { readGated, type GateFolder, type Refusal } from '../fs/read-gate.js'

/**
 * Where workspace instructions live and how they are read. Pure file-system work: no framing, no session state.
 * Every file is read through the read gate (`src/fs/read-gate.ts`): the user-wide file must stay in `$REIN_HOME`, the
 * project's in the project root, and none may be one the read guard refuses.
 */

/** The names looked for in each directory, in the order they are read: shared files, then personal `.local.md`. */
export const INSTRUCTION_FILE_NAMES = ['AGENTS.md', 'CLAUDE.md', 'AGENTS.local.md', 'CLAUDE.local.md'] as const

/** One instruction file as it is on disk now. `sha256` is the hex digest of its bytes; `bytes` their count. */
export interface InstructionFile {
  path: string
  content: string
  sha256: string
  bytes: number
}

/** The nearest directory at or above `cwd` that holds `.git` (a directory, or a worktree's file); else `cwd`. */
export function projectRoot(cwd: string): string {
  const start = resolve(cwd)
  for (let dir = start; ; dir = dirname(dir)) {
    if (exists(join(dir, '.git'))) return dir
    if (dirname(dir) === dir) return start
  }
}

/**
 * The paths that may hold instructions for a session in `cwd`, broadest first: the user-wide
 * `$REIN_HOME/AGENTS.md`, then every directory from the project root down to `cwd`, each with the names of
 * `INSTRUCTION_FILE_NAMES` in order. Whether the files exist is not checked here.
 */
export function workspaceInstructionPaths(options: { home: string; cwd: string }): string[] {
  const cwd = resolve(options.cwd)
  const paths = [join(resolve(options.home), 'AGENTS.md')]
  for (const dir of directoriesBetween(projectRoot(cwd), cwd)) paths.push(...directoryInstructionPaths(dir))
  return unique(paths)
}

/** The instruction-file paths of one directory, in reading order. */
export function directoryInstructionPaths(dir: string): string[] {
  return INSTRUCTION_FILE_NAMES.map((name) => join(dir, name))
}

/**
 * The directories strictly below `cwd` down to and including `dir`, outermost first; empty when `dir` is `cwd`
 * itself or not inside it. Paths are compared after `resolve`, so `..` cannot climb out.
 */
export function directoriesBelow(cwd: string, dir: string): string[] {
  const base = resolve(cwd)
  const target = resolve(dir)
  const rel = relative(base, target)
  if (rel === '' || rel.startsWith('..') || resolve(base, rel) !== target || isAbsoluteRelative(rel)) return []
  const out: string[] = []
  let current = base
  for (const part of rel.split(sep)) {
    current = join(current, part)
    out.push(current)
  }
  return out
}

/** Where instruction files may come from and the guard they pass: the inputs of the read gate. */
export interface InstructionSources {
  /** `$REIN_HOME`: the user-wide `AGENTS.md` must stay in it. */
  home: string
  /** The project root (`projectRoot(cwd)`): every other instruction file must stay in it. */
  root: string
  refuses: Refusal
}

/** A file the gate would not read, with the clause that says why (`it is a link to /etc/passwd, outside /repo`). */
export interface SkippedFile {
  path: string
  reason: string
}

/**
 * Reads one instruction file through the read gate. Null when there is no file; `skipped` when the gate refused it
 * (a link out of its folder, a file the read guard refuses, a directory, FIFO or device, one too large). An unreadable
 * file is skipped rather than failing the step, because instructions are advice: the session goes on without them.
 */
export function readInstructionFile(path: string, sources: InstructionSources): InstructionFile | { skipped: SkippedFile } | null {
  const read = readGated(path, { folder: instructionFolder(path, sources), refuses: sources.refuses })
  if (read.kind === 'absent') return null
  if (read.kind === 'skipped') return { skipped: { path, reason: read.reason } }
  const buffer = read.bytes
  return {
    path,
    content: buffer.toString('utf8'),
    sha256: createHash('sha256').update(buffer).digest('hex'),
    bytes: buffer.length,
  }
}

/** Reads every path that holds a file, keeping the order of `paths`; the files the gate refused are apart. */
export function readInstructionFiles(paths: readonly string[], sources: InstructionSources): { files: InstructionFile[]; skipped: SkippedFile[] } {
  const files: InstructionFile[] = []
  const skipped: SkippedFile[] = []
  for (const path of paths) {
    const read = readInstructionFile(path, sources)
    if (read === null) continue
    if ('skipped' in read) skipped.push(read.skipped)
    else files.push(read)
  }
  return { files, skipped }
}

/** The folder an instruction file must stay in: `$REIN_HOME` for the user-wide file, else the project root. */
export function instructionFolder(path: string, sources: Pick<InstructionSources, 'home' | 'root'>): GateFolder {
  const home = resolve(sources.home)
  const dir = resolve(path) === join(home, 'AGENTS.md') ? home : resolve(sources.root)
  return { dir, base: dir }
}

/**
 * Splits files (broadest first) into those shown and those dropped to stay within `budgetBytes`. The most specific
 * files are kept first; a file that does not fit in what is left is dropped, so the broadest files go first and a
 * single oversized file does not push out smaller broader ones. Both lists keep the input order.
 */
export function fitBudget<F extends { bytes: number }>(files: readonly F[], budgetBytes: number): { kept: F[]; dropped: F[] } {
  let left = budgetBytes
  const keep = new Set<F>()
  for (let i = files.length - 1; i >= 0; i--) {
    const file = files[i]
    if (file.bytes <= left) {
      keep.add(file)
      left -= file.bytes
    }
  }
  return { kept: files.filter((f) => keep.has(f)), dropped: files.filter((f) => !keep.has(f)) }
}

/** Every directory from `root` down to `cwd`, outermost first; just `cwd` when it is not below `root`. */
function directoriesBetween(root: string, cwd: string): string[] {
  return root === cwd ? [cwd] : [root, ...directoriesBelow(root, cwd)]
}

function isAbsoluteRelative(rel: string): boolean {
  // On Windows `relative` returns an absolute path when the two are on different drives.
  return resolve(rel) === rel
}

function exists(path: string): boolean {
  try {
    statSync(path)
    return true
  } catch {
    // Missing or unreadable: either way there is no repository marker to use here.
    return false
  }
}

function unique(paths: string[]): string[] {
  return [...new Set(paths)]
}
