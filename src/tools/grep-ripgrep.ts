import { spawn } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import path from 'node:path'
import { createInterface } from 'node:readline'
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
 * Searches with ripgrep. `--no-require-git` makes `.gitignore` apply outside a git repository too, as the built-in
 * search does; `--sort path` makes the order deterministic; hidden files are searched, `.git` is not.
 */
export async function ripgrep(rg: string, q: GrepQuery): Promise<GrepResult> {
  const args = ['--no-config', '--no-require-git', '--hidden', '--glob', '!.git', '--sort', 'path', '--color', 'never']
  if (q.ignoreCase) args.push('-i')
  if (q.glob) args.push('--glob', q.glob)
  if (q.mode === 'files_with_matches') args.push('-l')
  else if (q.mode === 'count') args.push('-c', '--with-filename')
  else {
    args.push('--with-filename', '--no-heading', '--max-columns', String(GREP_LINE_CHARS), '--max-columns-preview')
    args.push(q.lineNumbers ? '-n' : '-N')
    if (q.before) args.push('-B', String(q.before))
    if (q.after) args.push('-A', String(q.after))
  }
  args.push('-e', q.pattern, '--', displayPath(q.cwd, q.target))

  const child = spawn(rg, args, { cwd: q.cwd, stdio: ['ignore', 'pipe', 'pipe'], signal: q.signal })
  const lines: string[] = []
  let cut = false
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
  const exited = new Promise<number | null>((resolve) => {
    child.on('close', (code) => resolve(code))
    child.on('error', () => resolve(null))
  })
  for await (const line of createInterface({ input: child.stdout })) {
    if (lines.length >= q.maxLines) {
      cut = true
      child.kill()
      break
    }
    lines.push(line.startsWith('./') ? line.slice(2) : line)
  }
  const code = await exited
  if (cut) return { lines, cut }
  if (code === 0 || code === 1) return { lines, cut: false }
  if (q.signal.aborted) return { error: 'Error: the search was cancelled.' }
  return { error: `Error: grep failed: ${stderr.trim().split('\n')[0] || `ripgrep exited with code ${code}`}.` }
}
