import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Checkpoints } from '../../src/checkpoints/engine.js'
import { fingerprint } from './shadow-support.js'

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
  }).toString()
}

function repository(): { cwd: string; home: string } {
  const root = mkdtempSync(join(tmpdir(), 'rein-checkpoints-repo-'))
  const cwd = join(root, 'project')
  const home = join(root, 'home')
  mkdirSync(cwd)
  mkdirSync(home)
  git(cwd, 'init', '--quiet')
  writeFileSync(join(cwd, 'tracked.txt'), 'one\n')
  writeFileSync(join(cwd, 'staged.txt'), 'staged\n')
  git(cwd, 'add', 'tracked.txt')
  git(cwd, 'commit', '--quiet', '-m', 'first')
  git(cwd, 'add', 'staged.txt')
  writeFileSync(join(cwd, 'tracked.txt'), 'one, edited but not staged\n')
  writeFileSync(join(cwd, 'stashme.txt'), 'x\n')
  // A hook that would leave a mark if any git Rein runs executed it.
  writeFileSync(join(cwd, '.git', 'hooks', 'post-index-change'), `#!/bin/sh\ntouch ${join(root, 'HOOK-RAN')}\n`, { mode: 0o755 })
  return { cwd, home }
}

describe('checkpoints in a workspace that is a git repository', () => {
  it("leaves the user's .git (index, refs, hooks, config) byte-identical across a snapshot and a restore", async () => {
    const { cwd, home } = repository()
    const before = fingerprint(join(cwd, '.git'))
    const engine = new Checkpoints({ home, cwd })
    const snapshot = await engine.snapshot()
    writeFileSync(join(cwd, 'tracked.txt'), 'agent rewrote this\n')
    writeFileSync(join(cwd, 'created.txt'), 'agent made this\n')
    await engine.restore(snapshot.commit)
    expect(fingerprint(join(cwd, '.git'))).toEqual(before)
    expect(readdirSync(join(cwd, '..'))).not.toContain('HOOK-RAN')
    expect(readFileSync(join(cwd, 'tracked.txt'), 'utf8')).toBe('one, edited but not staged\n')
    expect(git(cwd, 'status', '--porcelain')).toBe('A  staged.txt\n M tracked.txt\n?? stashme.txt\n')
  })

  it("snapshots the files git's status sees, never the contents of .git", async () => {
    const { cwd, home } = repository()
    const snapshot = await new Checkpoints({ home, cwd }).snapshot()
    expect(snapshot.files).toBe(3)
  })

  it('a nested repository is named as skipped and left alone by a restore', async () => {
    const { cwd, home } = repository()
    const nested = join(cwd, 'vendor', 'lib')
    mkdirSync(nested, { recursive: true })
    git(nested, 'init', '--quiet')
    writeFileSync(join(nested, 'x.c'), 'int x;\n')
    const engine = new Checkpoints({ home, cwd })
    const snapshot = await engine.snapshot()
    expect(snapshot.skipped).toEqual([{ path: 'vendor/lib', reason: 'nested-repository' }])
    await engine.restore(snapshot.commit)
    expect(readFileSync(join(nested, 'x.c'), 'utf8')).toBe('int x;\n')
  })

  it("runs no filter, fsmonitor or hook the user's repository configures, and stores the file's own bytes", async () => {
    const { cwd, home } = repository()
    const mark = join(cwd, '..', 'PROGRAM-RAN')
    git(cwd, 'config', 'filter.evil.clean', `touch ${mark}; cat`)
    git(cwd, 'config', 'core.fsmonitor', `touch ${mark}`)
    writeFileSync(join(cwd, '.gitattributes'), '* filter=evil text eol=crlf\n')
    writeFileSync(join(cwd, 'lf.txt'), 'unix\nlines\n')
    const engine = new Checkpoints({ home, cwd })
    const snapshot = await engine.snapshot()
    writeFileSync(join(cwd, 'lf.txt'), 'changed\n')
    await engine.restore(snapshot.commit)
    expect(readdirSync(join(cwd, '..'))).not.toContain('PROGRAM-RAN')
    expect(readFileSync(join(cwd, 'lf.txt'), 'utf8')).toBe('unix\nlines\n')
  })
})
