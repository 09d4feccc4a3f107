import { readdir, readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import ignore, { type Ignore } from 'ignore'
import picomatch from 'picomatch'
import { displayPath, isInside } from './paths.js'
import { GREP_LINE_CHARS, type GrepQuery, type GrepResult } from './grep-query.js'
import { requiredLiteral } from './grep-literal.js'
import { FileReader, type FileVerdict } from './grep-read.js'
import { WorkerReader } from './grep-worker.js'

/**
 * Files read at once on this thread. Reading one file at a time left the process idle on I/O most of the time (issue
 * 36: 74% idle on 100K files); a bounded window keeps libuv's threads busy while holding few files in memory.
 */
const READ_AHEAD = 64

/**
 * Files a search reads on this thread before it starts a worker thread for the rest. A worker costs tens of
 * milliseconds to start, which a small tree never earns back; on 100K files it reads with a third of the CPU per file.
 */
const WORKER_AFTER = 2000

/** Files in flight once the worker reads: enough batches queued that the worker never waits for the walk. */
const WORKER_READ_AHEAD = 1024

interface IgnoreLevel {
  dir: string
  rules: Ignore
}

/**
 * The search used when ripgrep is not installed. It follows ripgrep's defaults where they matter to a model:
 * `.gitignore` files from the working directory down are honoured, `.git` is skipped, hidden files are searched,
 * files with a NUL byte in their first 8 KiB count as binary and are skipped, and results come in path order in
 * ripgrep's output format. Patterns are JavaScript regular expressions.
 */
export async function builtinGrep(q: GrepQuery): Promise<GrepResult> {
  let regex: RegExp
  try {
    regex = new RegExp(q.pattern, q.ignoreCase ? 'i' : '')
  } catch (error) {
    return { error: `Error: invalid regular expression: ${(error as Error).message}.` }
  }
  // Most files do not match: one search over the whole text (with `m`, so ^ and $ still mean a line's ends) rules them
  // out without splitting them into lines. Lookarounds could see past a line's end in the whole text, so a pattern
  // with one is always searched line by line.
  const anyMatch = /\(\?<?[=!]/.test(q.pattern) ? undefined : new RegExp(q.pattern, q.ignoreCase ? 'im' : 'm')
  const matchGlob = q.glob ? picomatch(q.glob, { dot: true, basename: !q.glob.includes('/') }) : undefined
  const lines: string[] = []
  const state = { cut: false, lastFileHadContext: false }
  let leftOut = 0
  const refused = (full: string): boolean => {
    if (!q.refuses?.(full)) return false
    leftOut++
    return true
  }

  const literal = requiredLiteral(q.pattern, q.ignoreCase)
  const reader = new FileReader(literal === undefined ? undefined : Buffer.from(literal, 'utf8'))
  let worker: WorkerReader | undefined
  let queued = 0
  const read = (file: string): Promise<FileVerdict> => {
    if (++queued > WORKER_AFTER) worker ??= new WorkerReader(literal, anyMatch, reader)
    return worker ? worker.read(file) : reader.read(file)
  }
  /** The file's lines when it may match (searched, and not ruled out by the literal or the whole-text search). */
  const readLines = async (file: string): Promise<string[] | undefined> => {
    const verdict = await read(file)
    if (!('text' in verdict)) return undefined
    if (anyMatch && !anyMatch.test(verdict.text)) return undefined
    return verdict.text.split(/\r?\n/)
  }
  // Files are read READ_AHEAD at a time but searched and emitted strictly in walk (path) order.
  const window: { file: string; lines: Promise<string[] | undefined> }[] = []
  const emitOldest = async (): Promise<void> => {
    const oldest = window.shift()
    if (!oldest) return
    const fileLines = await oldest.lines
    if (fileLines && !state.cut) emitMatches(displayPath(q.cwd, oldest.file), fileLines, regex, q, lines, state)
  }
  /** `relToBase` gives the path the glob is matched against (computed only when there is a glob). */
  const searchFile = async (file: string, relToBase: () => string): Promise<void> => {
    if (matchGlob && !matchGlob(relToBase())) return
    window.push({ file, lines: readLines(file) })
    while (window.length >= (worker ? WORKER_READ_AHEAD : READ_AHEAD)) await emitOldest()
  }

  const walk = async (dir: string, levels: IgnoreLevel[]): Promise<void> => {
    let entries
    try {
      entries = await readdir(dir, { withFileTypes: true })
    } catch {
      return // A directory we may not list: skipped, as ripgrep does.
    }
    const here = entries.some((entry) => entry.name === '.gitignore') ? await loadIgnore(dir) : undefined
    const stack = here ? [...levels, here] : levels
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const entry of entries) {
      if (state.cut || q.signal.aborted) return
      if (entry.name === '.git') continue
      const full = path.join(dir, entry.name)
      const isDir = entry.isDirectory()
      if (ignored(stack, full, isDir)) continue
      if ((isDir || entry.isFile()) && refused(full)) continue
      if (isDir) await walk(full, stack)
      else if (entry.isFile()) await searchFile(full, () => path.relative(q.target, full))
    }
  }

  let info
  try {
    info = await stat(q.target)
  } catch {
    return { error: `Error: ${displayPath(q.cwd, q.target)} does not exist.` }
  }
  try {
    if (info.isFile()) {
      if (!refused(q.target)) await searchFile(q.target, () => path.basename(q.target))
    }
    else await walk(q.target, await ancestorsIgnore(q.cwd, q.target))
    // Once cut, nothing more is emitted: the reads still in flight are left to finish unheard.
    while (window.length && !state.cut) await emitOldest()
  } finally {
    await worker?.close()
  }
  return { lines: lines.slice(0, q.maxLines), cut: state.cut, leftOut }
}

function emitMatches(
  shown: string,
  fileLines: string[],
  regex: RegExp,
  q: GrepQuery,
  out: string[],
  state: { cut: boolean; lastFileHadContext: boolean },
): void {
  if (fileLines.length > 0 && fileLines[fileLines.length - 1] === '') fileLines.pop()
  const hits: number[] = []
  for (let i = 0; i < fileLines.length; i++) if (regex.test(fileLines[i])) hits.push(i)
  if (hits.length === 0) return
  const push = (line: string) => {
    if (out.length >= q.maxLines) state.cut = true
    else out.push(line)
  }
  if (q.mode === 'files_with_matches') return push(shown)
  if (q.mode === 'count') return push(`${shown}:${hits.length}`)

  const context = q.before > 0 || q.after > 0
  const hitSet = new Set(hits)
  let printedUpTo = -1
  for (const hit of hits) {
    const from = Math.max(hit - q.before, printedUpTo + 1)
    const to = Math.min(hit + q.after, fileLines.length - 1)
    if (context && (printedUpTo >= 0 ? from > printedUpTo + 1 : state.lastFileHadContext)) push('--')
    for (let i = from; i <= to; i++) {
      const sep = hitSet.has(i) ? ':' : '-'
      const text = fileLines[i].length > GREP_LINE_CHARS ? `${fileLines[i].slice(0, GREP_LINE_CHARS)} [... line cut]` : fileLines[i]
      push(q.lineNumbers ? `${shown}${sep}${i + 1}${sep}${text}` : `${shown}${sep}${text}`)
    }
    printedUpTo = Math.max(printedUpTo, to)
  }
  state.lastFileHadContext = context
}

async function loadIgnore(dir: string): Promise<IgnoreLevel | undefined> {
  try {
    const text = await readFile(path.join(dir, '.gitignore'), 'utf8')
    return { dir, rules: ignore().add(text) }
  } catch {
    return undefined // No .gitignore here.
  }
}

/** The `.gitignore` files between the working directory and the search root, which apply to the search too. */
async function ancestorsIgnore(cwd: string, target: string): Promise<IgnoreLevel[]> {
  if (!isInside(target, cwd) || target === cwd) return []
  const levels: IgnoreLevel[] = []
  for (let dir = cwd; dir !== target && isInside(target, dir); ) {
    const level = await loadIgnore(dir)
    if (level) levels.push(level)
    const next = path.join(dir, path.relative(dir, target).split(path.sep)[0])
    if (next === dir) break
    dir = next
  }
  return levels
}

function ignored(levels: IgnoreLevel[], full: string, isDir: boolean): boolean {
  for (const level of levels) {
    const rel = path.relative(level.dir, full).split(path.sep).join('/')
    if (rel && level.rules.ignores(isDir ? `${rel}/` : rel)) return true
  }
  return false
}
