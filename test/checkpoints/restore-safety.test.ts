import { spawn, execFileSync } from 'node:child_process'
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { Checkpoints } from '../../src/checkpoints/engine.js'
import { RestoreFailed } from '../../src/checkpoints/restore.js'
import { fingerprint, shadow } from './shadow-support.js'

function workspace(options: { maxFileBytes?: number; lockWaitMs?: number } = {}): { root: string; cwd: string; home: string; engine: Checkpoints } {
  const root = mkdtempSync(join(tmpdir(), 'rein-restore-safety-'))
  const cwd = join(root, 'project')
  const home = join(root, 'home')
  mkdirSync(cwd)
  mkdirSync(home)
  writeFileSync(join(cwd, 'a.txt'), 'alpha\n')
  mkdirSync(join(cwd, 'src'))
  writeFileSync(join(cwd, 'src', 'main.ts'), 'export const x = 1\n')
  return { root, cwd, home, engine: new Checkpoints({ home, cwd, sessionId: 'safety', maxFileBytes: options.maxFileBytes ?? 1024, lockWaitMs: options.lockWaitMs }) }
}

const mode = (path: string) => lstatSync(path).mode & 0o7777

const children: { kill(signal: NodeJS.Signals): boolean }[] = []
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL')
})

describe('a restore never touches what the snapshot left out', () => {
  it('a file the agent never touched, grown past the size limit by the user, is not overwritten by the restore', async () => {
    const { cwd, engine } = workspace()
    writeFileSync(join(cwd, 'data.log'), 'small\n')
    const target = await engine.snapshot()
    writeFileSync(join(cwd, 'a.txt'), 'agent\n')
    await engine.snapshot()
    writeFileSync(join(cwd, 'data.log'), 'u'.repeat(4096))

    const restored = await engine.restore(target.commit)
    expect(restored).toEqual([{ path: 'a.txt', kind: 'modified' }])
    expect(readFileSync(join(cwd, 'data.log'), 'utf8')).toBe('u'.repeat(4096))
    expect(readFileSync(join(cwd, 'a.txt'), 'utf8')).toBe('alpha\n')
  })

  it('a file the agent changed and the user then grew past the limit is left alone and named, not put back', async () => {
    const { cwd, engine } = workspace()
    writeFileSync(join(cwd, 'data.log'), 'small\n')
    const target = await engine.snapshot()
    writeFileSync(join(cwd, 'data.log'), 'agent wrote this\n')
    await engine.snapshot()
    writeFileSync(join(cwd, 'data.log'), 'u'.repeat(4096))

    const plan = await engine.plan(target.commit)
    expect(plan.leftAlone).toEqual([{ path: 'data.log', reason: 'too-large' }])
    expect(plan.changes).toEqual([])
    const result = await engine.restorePlanned(plan)
    expect(result.leftAlone).toEqual([{ path: 'data.log', reason: 'too-large' }])
    expect(readFileSync(join(cwd, 'data.log'), 'utf8')).toBe('u'.repeat(4096))
  })

  it('a path ignored since the snapshot is neither rewritten nor removed', async () => {
    const { cwd, engine } = workspace()
    writeFileSync(join(cwd, 'build.out'), 'old build\n')
    const target = await engine.snapshot()
    writeFileSync(join(cwd, 'build.out'), 'new build\n')
    await engine.snapshot()
    writeFileSync(join(cwd, '.gitignore'), '*.out\n')
    const plan = await engine.plan(target.commit)
    expect(plan.leftAlone).toContainEqual({ path: 'build.out', reason: 'ignored' })
    await engine.restorePlanned(plan)
    expect(readFileSync(join(cwd, 'build.out'), 'utf8')).toBe('new build\n')
  })

  it('a path that changed between the plan and the write is left as it is and named, the rest restored', async () => {
    const { cwd, engine } = workspace()
    const target = await engine.snapshot()
    writeFileSync(join(cwd, 'a.txt'), 'agent\n')
    writeFileSync(join(cwd, 'src', 'main.ts'), 'agent\n')
    const plan = await engine.plan(target.commit)
    writeFileSync(join(cwd, 'a.txt'), 'typed by the user meanwhile\n')

    const result = await engine.restorePlanned(plan)
    expect(result.restored).toEqual([{ path: 'src/main.ts', kind: 'modified' }])
    expect(result.leftAlone).toEqual([{ path: 'a.txt', reason: 'changed' }])
    expect(readFileSync(join(cwd, 'a.txt'), 'utf8')).toBe('typed by the user meanwhile\n')
  })

  it('a directory that became a symlink is never written through: the link is removed, then the files come back', async () => {
    const { root, cwd, engine } = workspace()
    const target = await engine.snapshot()
    const outside = join(root, 'outside')
    mkdirSync(outside)
    rmSync(join(cwd, 'src'), { recursive: true })
    execFileSync('ln', ['-s', outside, join(cwd, 'src')])
    await engine.restore(target.commit)
    expect(lstatSync(join(cwd, 'src')).isDirectory()).toBe(true)
    expect(readFileSync(join(cwd, 'src', 'main.ts'), 'utf8')).toBe('export const x = 1\n')
    expect(readdirSync(outside)).toEqual([])
  })

  it('each file is renamed into place (a new inode), no temporary file is left, and the shadow index ends as the disk is', async () => {
    const { cwd, engine } = workspace()
    const target = await engine.snapshot()
    writeFileSync(join(cwd, 'a.txt'), 'agent\n')
    writeFileSync(join(cwd, 'new.txt'), 'new\n')
    rmSync(join(cwd, 'src', 'main.ts'))
    const inode = statSync(join(cwd, 'a.txt')).ino
    await engine.restore(target.commit)
    expect(statSync(join(cwd, 'a.txt')).ino).not.toBe(inode)
    expect(readdirSync(cwd).sort()).toEqual(['a.txt', 'src'])
    expect(readdirSync(join(cwd, 'src'))).toEqual(['main.ts'])
    // The index holds exactly the target's tree, and refreshing it finds nothing on disk that differs.
    expect(shadow(engine.gitDir, 'write-tree')).toBe(shadow(engine.gitDir, 'rev-parse', `${target.commit}^{tree}`))
    shadow(engine.gitDir, '--work-tree', cwd, 'update-index', '-q', '--refresh')
    expect(shadow(engine.gitDir, '--work-tree', cwd, 'diff-files', '--name-only')).toBe('')
  })

  it('a file name that is not UTF-8 comes back under its own bytes', async () => {
    const { cwd, engine } = workspace()
    const name = Buffer.concat([Buffer.from(`${cwd}/caf`), Buffer.from([0xe9]), Buffer.from('.txt')])
    writeFileSync(name, 'latin-1 name\n')
    const target = await engine.snapshot()
    rmSync(name)
    writeFileSync(join(cwd, 'a.txt'), 'agent\n')
    await engine.restore(target.commit)
    expect(readFileSync(name, 'utf8')).toBe('latin-1 name\n')
    expect(readdirSync(cwd).length).toBe(3)
  })
})

describe('permission bits', () => {
  it('0600 and 0700 files come back 0600 and 0700 after a restore, and after restoring the `before` snapshot too', async () => {
    const { cwd, engine } = workspace()
    writeFileSync(join(cwd, '.env'), 'TOKEN=1\n')
    chmodSync(join(cwd, '.env'), 0o600)
    writeFileSync(join(cwd, 'run.sh'), '#!/bin/sh\n')
    chmodSync(join(cwd, 'run.sh'), 0o700)
    const target = await engine.snapshot()
    writeFileSync(join(cwd, '.env'), 'TOKEN=2\n')
    rmSync(join(cwd, 'run.sh'))
    writeFileSync(join(cwd, 'tool.sh'), '#!/bin/sh\n')
    chmodSync(join(cwd, 'tool.sh'), 0o700)
    writeFileSync(join(cwd, 'key.pem'), 'secret\n')
    chmodSync(join(cwd, 'key.pem'), 0o640)

    const plan = await engine.plan(target.commit)
    const before = await engine.snapshot('before', { modesOf: plan.changes.filter((c) => c.now !== null).map((c) => c.path) })
    const beforePrint = fingerprint(cwd)
    await engine.restorePlanned(plan)
    expect(mode(join(cwd, '.env'))).toBe(0o600)
    expect(mode(join(cwd, 'run.sh'))).toBe(0o700)
    expect(existsSync(join(cwd, 'tool.sh'))).toBe(false)

    await engine.restore(before.commit)
    expect(fingerprint(cwd)).toEqual(beforePrint)
    expect(mode(join(cwd, 'tool.sh'))).toBe(0o700)
    expect(mode(join(cwd, 'key.pem'))).toBe(0o640)
    expect(mode(join(cwd, '.env'))).toBe(0o600)
  })

  it('a chmod alone is recorded by the `before` snapshot of the paths a rewind writes', async () => {
    const { cwd, engine } = workspace()
    const target = await engine.snapshot()
    writeFileSync(join(cwd, 'a.txt'), 'agent\n')
    await engine.snapshot()
    chmodSync(join(cwd, 'a.txt'), 0o600)
    const plan = await engine.plan(target.commit)
    const before = await engine.snapshot('before', { modesOf: ['a.txt'] })
    await engine.restorePlanned(plan)
    await engine.restore(before.commit)
    expect(readFileSync(join(cwd, 'a.txt'), 'utf8')).toBe('agent\n')
    expect(mode(join(cwd, 'a.txt'))).toBe(0o600)
  })
})

describe("Rein's and Claude Code's settings and trust files", () => {
  const settingsFiles = ['.rein/settings.local.json', '.rein/settings.json', '.claude/settings.json', '.claude/settings.local.json', 'sub/.rein/settings.local.json']

  it('never enter a snapshot and survive a restore to a snapshot taken before they existed', async () => {
    const { cwd, engine } = workspace()
    const target = await engine.snapshot()
    for (const file of settingsFiles) {
      mkdirSync(join(cwd, file, '..'), { recursive: true })
      writeFileSync(join(cwd, file), '{"permissions":{"allow":["Bash(ls)"]}}\n')
    }
    writeFileSync(join(cwd, 'a.txt'), 'agent\n')
    const after = await engine.snapshot()
    expect(shadow(engine.gitDir, 'ls-tree', '-r', '--name-only', after.commit).split('\n').sort()).toEqual(['a.txt', 'src/main.ts'])
    expect(await engine.compare(target.commit)).toEqual([expect.objectContaining({ path: 'a.txt' })])
    await engine.restore(target.commit)
    for (const file of settingsFiles) expect(readFileSync(join(cwd, file), 'utf8')).toContain('Bash(ls)')
    expect(readFileSync(join(cwd, 'a.txt'), 'utf8')).toBe('alpha\n')
  })

  it('an older repository that still tracks one is cleaned up, and a restore of its old snapshot neither removes nor rewrites it', async () => {
    const { cwd, home, engine } = workspace()
    await engine.snapshot()
    mkdirSync(join(cwd, '.rein'))
    writeFileSync(join(cwd, '.rein', 'settings.local.json'), '{"old":true}\n')
    // What an older Rein did: stage and commit the settings file like any other.
    shadow(engine.gitDir, '--work-tree', cwd, 'add', '-f', '.rein/settings.local.json')
    const tree = shadow(engine.gitDir, 'write-tree')
    const old = shadow(engine.gitDir, 'commit-tree', tree, '-m', 'old snapshot')
    rmSync(join(engine.gitDir, 'rein-protected'))
    writeFileSync(join(cwd, '.rein', 'settings.local.json'), '{"allowAlways":true}\n')

    const fresh = new Checkpoints({ home, cwd, sessionId: 'later' })
    const snap = await fresh.snapshot()
    expect(shadow(engine.gitDir, 'ls-tree', '-r', '--name-only', snap.commit)).not.toContain('settings.local.json')
    await fresh.restore(old)
    expect(readFileSync(join(cwd, '.rein', 'settings.local.json'), 'utf8')).toBe('{"allowAlways":true}\n')
    rmSync(join(cwd, '.rein', 'settings.local.json'))
    await fresh.restore(old)
    expect(existsSync(join(cwd, '.rein', 'settings.local.json'))).toBe(false)
  })

  it("$REIN_HOME inside the workspace is not snapshotted", async () => {
    const root = mkdtempSync(join(tmpdir(), 'rein-home-inside-'))
    const home = join(root, '.rein-home')
    mkdirSync(home)
    writeFileSync(join(root, 'a.txt'), 'a\n')
    writeFileSync(join(home, 'trusted-workspaces.json'), '{}\n')
    const engine = new Checkpoints({ home, cwd: root })
    const snap = await engine.snapshot()
    expect(shadow(engine.gitDir, 'ls-tree', '-r', '--name-only', snap.commit)).toBe('a.txt')
  })
})

describe('locks that heal', () => {
  /** Starts a real git that takes the shadow index's lock and holds it while it waits on stdin. */
  async function holdIndexLock(gitDir: string, cwd: string) {
    const child = spawn('git', ['--git-dir', gitDir, '--work-tree', cwd, 'update-index', '--add', '--stdin'], { stdio: ['pipe', 'ignore', 'ignore'] })
    children.push(child)
    const lock = join(gitDir, 'index.lock')
    for (let i = 0; i < 400 && !existsSync(lock); i++) await new Promise((r) => setTimeout(r, 10))
    expect(existsSync(lock)).toBe(true)
    return { child, lock }
  }

  it('a lock left by a git that was killed is removed with a notice naming it, and the snapshot goes on', async () => {
    const { cwd, engine } = workspace()
    await engine.snapshot()
    const { child, lock } = await holdIndexLock(engine.gitDir, cwd)
    const exited = new Promise((r) => child.on('exit', r))
    child.kill('SIGKILL')
    await exited
    expect(existsSync(lock)).toBe(true)
    writeFileSync(join(cwd, 'a.txt'), 'changed\n')

    const snap = await engine.snapshot()
    expect(shadow(engine.gitDir, 'show', `${snap.commit}:a.txt`)).toBe('changed')
    expect(engine.takeNotices()).toEqual([`Removed a stale lock left in the checkpoint repository by a git process that is gone: ${lock}.`])
    expect(existsSync(lock)).toBe(false)
  })

  it('a stale lock on a ref no command writes soon is removed when the repository is next opened', async () => {
    const { cwd, home, engine } = workspace()
    await engine.snapshot()
    const lock = join(engine.gitDir, 'refs', 'rein', 'sessions', 'other-session.lock')
    writeFileSync(lock, '0123456789abcdef0123456789abcdef01234567\n')
    const again = new Checkpoints({ home, cwd, sessionId: 'safety' })
    await again.snapshot()
    expect(existsSync(lock)).toBe(false)
    expect(again.takeNotices()).toEqual([`Removed a stale lock left in the checkpoint repository by a git process that is gone: ${lock}.`])
  })

  it('a lock a live git holds is waited for, then the failure is one sentence naming the file and the process', async () => {
    const { cwd, home } = workspace()
    const engine = new Checkpoints({ home, cwd, sessionId: 'safety', lockWaitMs: 300 })
    await engine.snapshot()
    const { child, lock } = await holdIndexLock(engine.gitDir, cwd)
    writeFileSync(join(cwd, 'a.txt'), 'changed\n')
    const started = Date.now()
    const error = await engine.snapshot().then(
      () => undefined,
      (e: unknown) => e as Error,
    )
    expect(Date.now() - started).toBeGreaterThanOrEqual(300)
    expect(error?.message).toBe(`the checkpoint repository is locked: ${lock} is held by git update-index (pid ${child.pid}), still running after 0.3 s`)
    expect(existsSync(lock)).toBe(true)
  })

  it('a lock released during the wait lets the command run', async () => {
    const { cwd, home } = workspace()
    const engine = new Checkpoints({ home, cwd, sessionId: 'safety', lockWaitMs: 5000 })
    await engine.snapshot()
    const { child } = await holdIndexLock(engine.gitDir, cwd)
    writeFileSync(join(cwd, 'a.txt'), 'changed\n')
    setTimeout(() => child.stdin?.end(), 300)
    const snap = await engine.snapshot()
    expect(shadow(engine.gitDir, 'show', `${snap.commit}:a.txt`)).toBe('changed')
    expect(engine.takeNotices()).toEqual([])
  })
})

describe('a restore that stops part way', () => {
  it('names what was and was not restored', async () => {
    const { cwd, engine } = workspace()
    writeFileSync(join(cwd, 'b.txt'), 'beta\n')
    const target = await engine.snapshot()
    writeFileSync(join(cwd, 'a.txt'), 'agent a\n')
    writeFileSync(join(cwd, 'b.txt'), 'agent b\n')
    const plan = await engine.plan(target.commit)
    // An object the repository does not hold (as if pruned meanwhile): the restore stops at that file.
    const broken = { ...plan, changes: plan.changes.map((c) => (c.path === 'b.txt' ? { ...c, was: '0'.repeat(39) + '1' } : c)) }
    const error = await engine.restorePlanned(broken).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(RestoreFailed)
    const failed = error as RestoreFailed
    expect(failed.restored).toEqual([{ path: 'a.txt', kind: 'modified' }])
    expect(failed.notRestored).toEqual([{ path: 'b.txt', kind: 'modified' }])
    expect(readFileSync(join(cwd, 'a.txt'), 'utf8')).toBe('alpha\n')
    expect(readFileSync(join(cwd, 'b.txt'), 'utf8')).toBe('agent b\n')
  })
})
