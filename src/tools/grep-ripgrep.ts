import { spawn } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import path from 'node:path'
import { displayPath } from './paths.js'
import { GREP_LINE_CHARS, type GrepQuery, type GrepResult } from './grep-query.js'

/** The `rg` executable on PATH, or undefined. */
export function findRipgrep(envPath = process.env.PATH ?? ''): string | undefined {
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir) continue
    const candidate = path.join(dir, 'rg')
    try {
      accessSync(candidate, constants.X_OK)
      return candidate
    } catch {
      // Not in this directory; keep looking.
    }
  }
  return undefined
}

/**
 * Output ripgrep may give before the search stops gathering and falls back to `--sort path`: unsorted, ripgrep
 * searches on every core, but its files come in any order, so their results are held and sorted here; past this many
 * characters holding them costs more than the threads save, and `--sort path` streams them in order instead.
 */
const UNSORTED_OUTPUT_CHARS = 4 * 1024 * 1024

/**
 * Searches with ripgrep. `--no-require-git` makes `.gitignore` apply outside a git repository too, as the built-in
 * search does; results are put in path order here (`--sort path` would make ripgrep single-threaded: 411 vs 262 ms on
 * 100K files, issue 36), falling back to `--sort path` only for a very large output; hidden files are searched, `.git` is not. `--null` ends
 * each file name with a NUL byte, so the file of every result line is known exactly (names may hold `:`) and the read
 * guard can leave refused files out; line numbers are always asked for, so matches (`12:`) and context (`12-`) can be
 * told apart, and dropped again when the caller did not want them.
 */
export async function ripgrep(rg: string, q: GrepQuery): Promise<GrepResult> {
  return (await search(rg, q, false)) ?? (await search(rg, q, true)) ?? { error: 'Error: the search was cancelled.' }
}

/** One run of ripgrep; unsorted, it answers undefined when the output outgrew what is worth holding to sort. */
async function search(rg: string, q: GrepQuery, sorted: boolean): Promise<GrepResult | undefined> {
  const args = ['--no-config', '--no-require-git', '--hidden', '--glob', '!.git', ...(sorted ? ['--sort', 'path'] : []), '--color', 'never', '--null']
  if (q.ignoreCase) args.push('-i')
  if (q.glob) args.push('--glob', q.glob)
  if (q.mode === 'files_with_matches') args.push('-l')
  else if (q.mode === 'count') args.push('-c', '--with-filename')
  else {
    args.push('--with-filename', '--no-heading', '--max-columns', String(GREP_LINE_CHARS), '--max-columns-preview', '-n')
    if (q.before) args.push('-B', String(q.before))
    if (q.after) args.push('-A', String(q.after))
  }
  args.push('-e', q.pattern, '--', displayPath(q.cwd, q.target))

  const child = spawn(rg, args, { cwd: q.cwd, env: q.env ?? {}, stdio: ['ignore', 'pipe', 'pipe'], signal: q.signal })
  const lines: string[] = []
  let cut = false
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
  const exited = new Promise<number | null>((resolve) => {
    child.on('close', (code) => resolve(code))
    child.on('error', () => resolve(null))
  })
  const verdicts = new Map<string, boolean>()
  const refused = (file: string): boolean => {
    let verdict = verdicts.get(file)
    if (verdict === undefined) {
      verdict = q.refuses?.(path.resolve(q.cwd, file)) !== undefined
      verdicts.set(file, verdict)
    }
    return verdict
  }
  const records = q.mode === 'files_with_matches' ? splitOn(child.stdout, 0) : splitOn(child.stdout, 10)
  const ordered = sorted ? records : await inPathOrder(records, q.before > 0 || q.after > 0)
  if (ordered === undefined) {
    child.kill()
    await exited
    return undefined
  }
  for await (const record of ordered) {
    if (record === '') continue
    const line = formatRecord(record, q, refused)
    if (line === undefined || (line === '--' && (lines.length === 0 || lines[lines.length - 1] === '--'))) continue
    if (lines.length >= q.maxLines) {
      cut = true
      child.kill()
      break
    }
    lines.push(line)
  }
  if (lines[lines.length - 1] === '--') lines.pop()
  const leftOut = [...verdicts.values()].filter(Boolean).length
  const code = await exited
  if (cut) return { lines, cut, leftOut }
  if (code === 0 || code === 1) return { lines, cut: false, leftOut }
  if (q.signal.aborted) return { error: 'Error: the search was cancelled.' }
  return { error: `Error: grep failed: ${stderr.trim().split('\n')[0] || `ripgrep exited with code ${code}`}.` }
}

/**
 * One ripgrep record in the format the built-in search also gives (`file:12:text`, `file-13-text`, `file:3`, `file`),
 * or undefined when the read guard refuses its file. A record is `--` or `file NUL rest`.
 */
function formatRecord(record: string, q: GrepQuery, refused: (file: string) => boolean): string | undefined {
  if (record === '--') return record
  const nul = record.indexOf('\0')
  const raw = nul < 0 ? record : record.slice(0, nul)
  const file = raw.startsWith('./') ? raw.slice(2) : raw
  if (refused(file)) return undefined
  if (nul < 0 || q.mode === 'files_with_matches') return file
  const rest = record.slice(nul + 1)
  if (q.mode === 'count') return `${file}:${rest}`
  const numbered = /^(\d+)([:-])/.exec(rest)
  if (!numbered) return `${file}:${rest}`
  const [whole, , sep] = numbered
  return q.lineNumbers ? `${file}${sep}${rest}` : `${file}${sep}${rest.slice(whole.length)}`
}

/**
 * Ripgrep's records regrouped in path order, compared component by component as `--sort path` does: each file's
 * records arrive together (ripgrep writes a file's results at once), a `--` between files is dropped and put back
 * between files when context was asked for. Undefined when the output passes UNSORTED_OUTPUT_CHARS.
 */
async function inPathOrder(records: AsyncIterable<string>, context: boolean): Promise<string[] | undefined> {
  const groups: { file: string; records: string[] }[] = []
  let size = 0
  for await (const record of records) {
    size += record.length + 1
    if (size > UNSORTED_OUTPUT_CHARS) return undefined
    if (record === '') continue
    if (record === '--') {
      groups.at(-1)?.records.push(record)
      continue
    }
    const nul = record.indexOf('\0')
    const file = nul < 0 ? record : record.slice(0, nul)
    const group = groups.at(-1)
    if (group && group.file === file) group.records.push(record)
    else {
      if (group?.records.at(-1) === '--') group.records.pop()
      groups.push({ file, records: [record] })
    }
  }
  if (groups.at(-1)?.records.at(-1) === '--') groups.at(-1)?.records.pop()
  groups.sort((a, b) => comparePaths(a.file, b.file))
  const out: string[] = []
  for (const group of groups) {
    if (context && out.length) out.push('--')
    out.push(...group.records)
  }
  return out
}

function comparePaths(a: string, b: string): number {
  const x = a.split('/')
  const y = b.split('/')
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1
  return x.length - y.length
}

/** The stream's text cut at every `delimiter` byte (NUL or newline), as it arrives. */
async function* splitOn(stream: NodeJS.ReadableStream, delimiter: number): AsyncGenerator<string> {
  let pending = Buffer.alloc(0)
  for await (const chunk of stream) {
    pending = Buffer.concat([pending, chunk as Buffer])
    let at: number
    while ((at = pending.indexOf(delimiter)) >= 0) {
      yield pending.subarray(0, at).toString('utf8').replace(/\r$/, '')
      pending = pending.subarray(at + 1)
    }
  }
  if (pending.length) yield pending.toString('utf8')
}
