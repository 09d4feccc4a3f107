import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { Checkpoints } from '../../src/checkpoints/engine.js'
import { shadowRepository } from '../../src/checkpoints/retention-schedule.js'

/** A temporary workspace and `$REIN_HOME`, with a few files, and its shadow repository's path. */
export function workspace(): { root: string; cwd: string; home: string; gitDir: string } {
  const root = mkdtempSync(join(tmpdir(), 'rein-retention-'))
  const cwd = join(root, 'project')
  const home = join(root, 'home')
  mkdirSync(cwd)
  mkdirSync(home)
  writeFileSync(join(cwd, 'a.txt'), 'alpha\n')
  return { root, cwd, home, gitDir: shadowRepository(home, cwd) }
}

export function engineFor(box: { cwd: string; home: string }, sessionId?: string): Checkpoints {
  return new Checkpoints({ home: box.home, cwd: box.cwd, sessionId })
}

const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' }

/** Runs git on the shadow repository directly (what the test inspects); trims the output. */
export function shadow(gitDir: string, ...args: string[]): string {
  return execFileSync('git', ['--git-dir', gitDir, ...args], { env: GIT_ENV, stdio: 'pipe' }).toString().trim()
}

/** Whether an object exists in the shadow repository. */
export function hasObject(gitDir: string, id: string): boolean {
  try {
    shadow(gitDir, 'cat-file', '-e', id)
    return true
  } catch {
    return false
  }
}

/** The session refs of a shadow repository, by name. */
export function sessionRefs(gitDir: string): string[] {
  const out = shadow(gitDir, 'for-each-ref', '--format=%(refname)', 'refs/rein/sessions/')
  return out ? out.split('\n').sort() : []
}

/**
 * Makes a ref's newest snapshot look `days` old: the ref is pointed at a commit of the same tree whose committer
 * date is that far back (a fake age; no clock waits). Returns the new commit.
 */
export function backdate(gitDir: string, ref: string, days: number, now = Date.now()): string {
  const tree = shadow(gitDir, 'rev-parse', `${ref}^{tree}`)
  const when = `${Math.floor((now - days * 24 * 60 * 60 * 1000) / 1000)} +0000`
  const commit = execFileSync('git', ['--git-dir', gitDir, 'commit-tree', tree, '-m', 'backdated'], {
    env: { ...GIT_ENV, GIT_COMMITTER_DATE: when, GIT_AUTHOR_DATE: when },
  })
    .toString()
    .trim()
  shadow(gitDir, 'update-ref', ref, commit)
  return commit
}

/** Every file under a directory with its mode and digest: what "byte-identical" compares. */
export function fingerprint(dir: string, root = dir, out: Record<string, string> = {}): Record<string, string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    const stat = statSync(path)
    if (stat.isDirectory()) fingerprint(path, root, out)
    else out[relative(root, path)] = `${stat.mode} ${createHash('sha256').update(readFileSync(path)).digest('hex')}`
  }
  return out
}

/** The blob id git gives some content. */
export function blobOf(gitDir: string, content: string): string {
  return execFileSync('git', ['--git-dir', gitDir, 'hash-object', '--stdin'], { input: content, env: GIT_ENV }).toString().trim()
}

/** Sets every object file's time `days` back, as if the snapshots that wrote them were that old (no clock waits). */
export function ageObjects(gitDir: string, days: number): void {
  const when = new Date(Date.now() - days * 24 * 60 * 60 * 1000)
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else utimesSync(path, when, when)
    }
  }
  walk(join(gitDir, 'objects'))
}

/** Writes a blob no ref reaches, as a snapshot in progress in another process would; returns its id. */
export function writeLooseBlob(gitDir: string, content: string): string {
  return execFileSync('git', ['--git-dir', gitDir, 'hash-object', '-w', '--stdin'], { input: content, env: GIT_ENV }).toString().trim()
}
