import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { Checkpoints } from '../../src/checkpoints/engine.js'
import { ShadowGitAbandoned } from '../../src/checkpoints/shadow-git.js'
import { shadow } from './shadow-support.js'

const realPath = process.env.PATH
const roots: string[] = []
afterEach(() => {
  process.env.PATH = realPath
})
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true })
})

function box(): { root: string; cwd: string; home: string } {
  const root = mkdtempSync(join(tmpdir(), 'rein-deferred-'))
  roots.push(root)
  const cwd = join(root, 'project')
  mkdirSync(join(cwd, 'src'), { recursive: true })
  writeFileSync(join(cwd, 'a.txt'), 'alpha\n')
  writeFileSync(join(cwd, 'src', 'b.txt'), 'beta\n')
  return { root, cwd, home: join(root, 'home') }
}

/**
 * A `git` first on PATH for the shadow git calls of engines made after it: logs each command's name (`status`, `add`,
 * …), and while `slow(name)` is on, that command waits first, logging `<name> stopped` when it is sent SIGTERM meanwhile.
 */
function fakeGit(root: string): { runs: () => string[]; slow: (command: string | false) => void } {
  const flag = join(root, 'slow-add')
  const bin = join(root, 'bin')
  const log = join(root, 'git.log')
  mkdirSync(bin)
  writeFileSync(log, '')
  const real = execFileSync('bash', ['-c', 'command -v git']).toString().trim()
  writeFileSync(
    join(bin, 'git'),
    `#!/bin/bash
name=''
for a in "$@"; do case "$a" in status|add|update-index|write-tree|init|config|ls-files|rev-parse) name=$a; break;; esac; done
if [ -e '${flag}' ] && [ "$name" = "$(cat '${flag}')" ]; then
  # The trap and the sleep first, then the log line the test waits for; the sleep holds none of git's pipes.
  trap 'echo "$name stopped" >> "${log}"; kill $pid 2>/dev/null; exit 143' TERM
  sleep 600 >/dev/null 2>&1 </dev/null & pid=$!
  echo "$name" >> '${log}'
  wait $pid
elif [ -n "$name" ]; then
  echo "$name" >> '${log}'
fi
exec '${real}' "$@"
`,
  )
  chmodSync(join(bin, 'git'), 0o755)
  process.env.PATH = `${bin}:${realPath}`
  return {
    runs: () => readFileSync(log, 'utf8').split('\n').filter(Boolean),
    slow: (command) => (command ? writeFileSync(flag, command) : rmSync(flag, { force: true })),
  }
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20))
}

function locksIn(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.lock'))
    .map((entry) => entry.name)
}

describe('checkpoint work no caller waits for', () => {
  it("a step's listing leaves its index writes until the next request is on its way", async () => {
    const { root, cwd, home } = box()
    const git = fakeGit(root)
    const engine = new Checkpoints({ home, cwd, sessionId: 'deferred' })
    engine.watch()
    const before = await engine.snapshot('step', { reuse: true })
    const done = git.runs().length
    writeFileSync(join(cwd, 'a.txt'), 'changed\n')
    const changes = await engine.stepChanges(before.commit)
    expect(changes.map(({ path, kind }) => [path, kind])).toEqual([['a.txt', 'modified']])
    // Between the listing and the request only the listing's status ran.
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(git.runs().slice(done)).toEqual(['status'])
    engine.proceed()
    await engine.settled()
    expect(git.runs().slice(done)).toEqual(['status', 'update-index', 'write-tree'])
    // The next snapshot needs no walk: the index writes left the tree the feed vouches for.
    const reused = engine.reused
    const next = await engine.snapshot('step', { reuse: true })
    expect(engine.reused).toBe(reused + 1)
    expect(shadow(engine.gitDir, 'show', `${next.commit}:a.txt`)).toBe('changed')
    await engine.close()
  })

  it('deferred index writes are dropped when another process staged since the listing, and the next snapshot walks and holds the workspace', async () => {
    const { cwd, home } = box()
    const engine = new Checkpoints({ home, cwd, sessionId: 'deferred' })
    engine.watch()
    const before = await engine.snapshot('step', { reuse: true })
    writeFileSync(join(cwd, 'a.txt'), 'changed\n')
    await engine.stepChanges(before.commit)
    // Another Rein in the same workspace stages before the deferred writes start.
    const other = new Checkpoints({ home, cwd, sessionId: 'other' })
    await other.snapshot('other step')
    await other.close()
    engine.proceed()
    await engine.settled()
    expect(readdirSync(engine.gitDir).filter((name) => name.startsWith('index.rein-'))).toEqual([])
    const reused = engine.reused
    const next = await engine.snapshot('step', { reuse: true })
    expect(engine.reused).toBe(reused)
    expect(shadow(engine.gitDir, 'show', `${next.commit}:a.txt`)).toBe('changed')
    await engine.close()
  })

  it('closing the engine stops the first staging it started in the background, leaves no lock, and the next engine stages afresh', async () => {
    const { root, cwd, home } = box()
    const git = fakeGit(root)
    git.slow('add')
    const engine = new Checkpoints({ home, cwd, sessionId: 'abandoned' })
    engine.watch()
    await until(() => git.runs().includes('add'))
    await engine.close()
    expect(git.runs().slice(-2)).toEqual(['add', 'add stopped'])
    expect(locksIn(engine.gitDir)).toEqual([])
    // No snapshot was taken, so no ref names one.
    expect(existsSync(join(engine.gitDir, 'refs', 'rein', 'sessions', 'abandoned'))).toBe(false)

    process.env.PATH = realPath
    const next = new Checkpoints({ home, cwd, sessionId: 'next' })
    const snapshot = await next.snapshot()
    expect(snapshot.files).toBe(2)
    expect(shadow(next.gitDir, 'ls-tree', '-r', '--name-only', snapshot.commit).split('\n')).toEqual(['a.txt', 'src/b.txt'])
    expect(() => shadow(next.gitDir, 'fsck', '--strict', '--no-dangling')).not.toThrow()
    await next.close()
  })

  it('closing the engine while deferred index writes run stops them and leaves the shadow index as the listing found it, with no private index or lock', async () => {
    const { root, cwd, home } = box()
    const git = fakeGit(root)
    const engine = new Checkpoints({ home, cwd, sessionId: 'closed' })
    engine.watch()
    const before = await engine.snapshot('step', { reuse: true })
    writeFileSync(join(cwd, 'a.txt'), 'changed\n')
    await engine.stepChanges(before.commit)
    const index = readFileSync(join(engine.gitDir, 'index'))
    git.slow('update-index')
    const done = git.runs().length
    engine.proceed()
    await until(() => git.runs().slice(done).includes('update-index'))
    await engine.close()
    expect(git.runs().slice(done)).toEqual(['update-index', 'update-index stopped'])
    expect(locksIn(engine.gitDir)).toEqual([])
    expect(readdirSync(engine.gitDir).filter((name) => name.startsWith('index.rein-'))).toEqual([])
    expect(readFileSync(join(engine.gitDir, 'index')).equals(index)).toBe(true)
  })

  it('a snapshot whose caller stopped waiting is stopped by its signal and moves no ref', async () => {
    const { root, cwd, home } = box()
    const git = fakeGit(root)
    git.slow('add')
    const engine = new Checkpoints({ home, cwd, sessionId: 'overrun' })
    const stop = new AbortController()
    const attempt = engine.snapshot('step', { signal: stop.signal })
    await until(() => git.runs().includes('add'))
    stop.abort()
    await expect(attempt).rejects.toBeInstanceOf(ShadowGitAbandoned)
    expect(existsSync(join(engine.gitDir, 'refs', 'rein', 'sessions', 'overrun'))).toBe(false)
    expect(locksIn(engine.gitDir)).toEqual([])
    // The engine goes on: the next snapshot stages and commits as usual.
    git.slow(false)
    const snapshot = await engine.snapshot('step')
    expect(snapshot.files).toBe(2)
    await engine.close()
  })
})
