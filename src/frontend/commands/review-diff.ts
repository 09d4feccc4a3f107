import { statSync } from 'node:fs'
import { resolve } from 'node:path'
import { runSafeGit } from '../../trust/git.js'

/** The most diff text `/review` sends; past it whole files are left out and named. Bytes of UTF-8. */
export const MAX_DIFF_BYTES = 100 * 1024
/** The most untracked files named, and the most changed files diffed. */
const MAX_LISTED = 200
const GIT_TIMEOUT_MS = 20_000

/** What `/review` gathered: the changes as text for the prompt, or the one sentence saying why there is nothing. */
export type Changes = { kind: 'none'; message: string } | { kind: 'changes'; against: string; stat: string; diff: string; untracked: string[]; leftOut: string[] }

export interface GatherOptions {
  cwd: string
  /** The base to review against; absent: HEAD (staged and unstaged changes). */
  ref?: string
  /** Why a path may not be shown to the model (a `Read` deny rule), or undefined: the agent's read guard. */
  refuses?: (absolute: string) => string | undefined
  env?: NodeJS.ProcessEnv
}

function size(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${Math.round(bytes / 1024)} KB`
}

async function git(cwd: string, args: string[], env?: NodeJS.ProcessEnv): Promise<{ ok: boolean; out: string; error?: string }> {
  const r = await runSafeGit(args, { cwd, timeoutMs: GIT_TIMEOUT_MS, ...(env ? { env } : {}) })
  if (!r.error) return { ok: true, out: r.stdout }
  const code = r.error.code
  const error = code === 'ENOENT' ? 'git is not installed' : code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER' ? 'the diff is larger than 64 MB' : r.error.killed ? `git took longer than ${GIT_TIMEOUT_MS / 1000} s` : ''
  return { ok: false, out: r.stdout, ...(error ? { error } : {}) }
}

/** Whether `word` names a commit here (a branch, tag, hash, `HEAD~2`): `/review`'s first word is a ref only then. */
export async function namesCommit(cwd: string, word: string): Promise<boolean> {
  if (!/^[\w./@{}~^:-]+$/.test(word) || word.startsWith('-')) return false
  return (await git(cwd, ['rev-parse', '--verify', '--quiet', `${word}^{commit}`])).ok
}

/** Paths git prints with `-z`, NUL-separated. */
const paths = (out: string) => out.split('\0').filter(Boolean)

/**
 * The working tree's changes against `ref` (from where it and HEAD part, so a branch is reviewed as a pull request
 * would be) or against HEAD, through Rein's safe git (no repository-configured program runs). Files a `Read` deny
 * rule covers are left out and named; the diff is cut at whole files past `MAX_DIFF_BYTES`, naming what was cut.
 */
export async function gatherChanges(options: GatherOptions): Promise<Changes> {
  const { cwd, env } = options
  const inside = await git(cwd, ['rev-parse', '--is-inside-work-tree'], env)
  if (!inside.ok || inside.out.trim() !== 'true') {
    return { kind: 'none', message: inside.error === 'git is not installed' ? 'There is nothing to review here: git is not installed.' : `There is nothing to review: ${cwd} is not in a git repository.` }
  }
  let base: string
  let against: string
  if (options.ref !== undefined) {
    const ref = options.ref
    if (!/^[\w./@{}~^:-]+$/.test(ref) || ref.startsWith('-')) return { kind: 'none', message: `${JSON.stringify(ref.slice(0, 60))} is not a ref name; try /review main.` }
    const commit = await git(cwd, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], env)
    if (!commit.ok) return { kind: 'none', message: `There is no commit ${ref} in this repository; try /review main or /review HEAD~1.` }
    const fork = await git(cwd, ['merge-base', commit.out.trim(), 'HEAD'], env)
    base = fork.ok ? fork.out.trim() : commit.out.trim()
    against = `${ref} (from ${base.slice(0, 12)}, where it and HEAD part)`
  } else {
    const head = await git(cwd, ['rev-parse', '--verify', '--quiet', 'HEAD'], env)
    // A repository with no commit yet: everything staged is new; git's empty tree stands in for HEAD.
    base = head.ok ? 'HEAD' : '4b825dc642cb6eb9a060e54bf8af69288fbee904'
    against = head.ok ? 'HEAD (staged and unstaged changes)' : 'an empty repository (no commit yet)'
  }
  const changed = await git(cwd, ['diff', '--name-only', '-z', '--no-renames', base, '--'], env)
  const untrackedRun = await git(cwd, ['ls-files', '--others', '--exclude-standard', '-z'], env)
  if (!changed.ok) return { kind: 'none', message: `git diff failed${changed.error ? ` (${changed.error})` : ''}; nothing was sent.` }
  const refused = (path: string) => options.refuses?.(resolve(cwd, path))
  const leftOut: string[] = []
  const keep = (list: string[]) =>
    list.filter((p) => {
      if (!refused(p)) return true
      leftOut.push(`${p} (a Read deny rule covers it)`)
      return false
    })
  const files = keep(paths(changed.out))
  const untracked = keep(untrackedRun.ok ? paths(untrackedRun.out) : [])
  if (!files.length && !untracked.length) {
    return { kind: 'none', message: leftOut.length ? `There is nothing to review that may be shown: ${leftOut.join(', ')}.` : `There is nothing to review: no changes against ${options.ref ?? 'HEAD'}.` }
  }
  const diffed = files.slice(0, MAX_LISTED)
  if (files.length > diffed.length) leftOut.push(`${files.length - diffed.length} more changed files (past the first ${MAX_LISTED})`)
  const spec = diffed.map((p) => `:(literal)${p}`)
  const flags = ['--no-ext-diff', '--no-textconv', '--no-color', '--no-renames']
  const stat = diffed.length ? await git(cwd, ['diff', ...flags, '--stat=120', base, '--', ...spec], env) : { ok: true, out: '' }
  const diff = diffed.length ? await git(cwd, ['diff', ...flags, base, '--', ...spec], env) : { ok: true, out: '' }
  if (!diff.ok) return { kind: 'none', message: `git diff failed${diff.error ? ` (${diff.error})` : ''}; nothing was sent.` }
  const bounded = boundDiff(diff.out, MAX_DIFF_BYTES)
  leftOut.push(...bounded.cut)
  const listed = untracked.slice(0, MAX_LISTED).map((p) => {
    let bytes = 0
    try {
      bytes = statSync(resolve(cwd, p)).size
    } catch {
      // Removed since git listed it: named without a size.
    }
    return `${p} (${size(bytes)})`
  })
  if (untracked.length > listed.length) leftOut.push(`${untracked.length - listed.length} more untracked files`)
  return { kind: 'changes', against, stat: stat.out.trimEnd(), diff: bounded.text, untracked: listed, leftOut }
}

/**
 * A diff cut to `max` bytes at file boundaries (`diff --git` lines): the files that fit, in order; a first file larger
 * than `max` is cut at a line. `cut` names each file left out, with its size.
 */
export function boundDiff(diff: string, max: number): { text: string; cut: string[] } {
  const sections = diff.split(/(?=^diff --git )/m).filter(Boolean)
  const kept: string[] = []
  const cut: string[] = []
  let used = 0
  for (const section of sections) {
    const bytes = Buffer.byteLength(section)
    const name = /^diff --git a\/(.*?) b\//.exec(section)?.[1] ?? 'a file'
    if (used + bytes <= max) {
      kept.push(section)
      used += bytes
    } else if (!kept.length) {
      const head = Buffer.from(section).subarray(0, max).toString('utf8')
      kept.push(`${head.slice(0, head.lastIndexOf('\n') + 1)}[the rest of this file's diff was cut]\n`)
      used = max
      cut.push(`the end of the changes to ${name} (${size(bytes)} in all)`)
    } else cut.push(`the changes to ${name} (${size(bytes)})`)
  }
  return { text: kept.join(''), cut }
}
