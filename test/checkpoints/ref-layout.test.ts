import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { engineFor, hasObject, sessionRefs, shadow, workspace } from './shadow-support.js'

describe('checkpoint ref layout', () => {
  it("each session's snapshots are reachable from its own ref and from no other session's", async () => {
    const box = workspace()
    const first = engineFor(box, 'session-a')
    const a1 = await first.snapshot()
    writeFileSync(join(box.cwd, 'a.txt'), 'edited by a\n')
    const a2 = await first.snapshot()
    const b1 = await engineFor(box, 'session-b').snapshot()
    expect(sessionRefs(box.gitDir)).toEqual(['refs/rein/sessions/session-a', 'refs/rein/sessions/session-b'])
    expect(shadow(box.gitDir, 'rev-list', 'refs/rein/sessions/session-a').split('\n')).toEqual([a2.commit, a1.commit])
    expect(shadow(box.gitDir, 'rev-list', 'refs/rein/sessions/session-b').split('\n')).toEqual([b1.commit])
  })

  it("a new session's first snapshot of an unchanged workspace is a commit of its own with the same tree", async () => {
    const box = workspace()
    const a = await engineFor(box, 'session-a').snapshot()
    const b = await engineFor(box, 'session-b').snapshot()
    expect(b.commit).not.toBe(a.commit)
    expect(shadow(box.gitDir, 'rev-parse', `${b.commit}^{tree}`)).toBe(shadow(box.gitDir, 'rev-parse', `${a.commit}^{tree}`))
    expect(b.files).toBe(1)
  })

  it('a snapshot with nothing changed since the same session took one returns that one and writes nothing', async () => {
    const box = workspace()
    const engine = engineFor(box, 'session-a')
    const first = await engine.snapshot()
    const again = await engine.snapshot()
    expect(again.commit).toBe(first.commit)
    expect(shadow(box.gitDir, 'rev-list', '--count', '--all')).toBe('1')
  })

  it('a later snapshot moves the session ref and HEAD in place, under their locks, and git reads them cleanly', async () => {
    const box = workspace()
    const engine = engineFor(box, 'session-a')
    await engine.snapshot()
    const ref = join(box.gitDir, 'refs/rein/sessions/session-a')
    const files = [ref, join(box.gitDir, 'HEAD')].map((file) => ({ file, inode: statSync(file).ino }))
    writeFileSync(join(box.cwd, 'a.txt'), 'changed\n')
    const second = await engine.snapshot()
    // The same files, rewritten (no new file renamed over them), each naming the new snapshot.
    for (const { file, inode } of files) {
      expect(statSync(file).ino).toBe(inode)
      expect(readFileSync(file, 'utf8')).toBe(`${second.commit}\n`)
    }
    expect(shadow(box.gitDir, 'rev-parse', 'refs/rein/sessions/session-a', 'HEAD').split('\n')).toEqual([second.commit, second.commit])
    expect(() => shadow(box.gitDir, 'fsck', '--strict', '--no-dangling')).not.toThrow()
    expect(readdirSync(box.gitDir).filter((name) => name.endsWith('.lock'))).toEqual([])
    expect(readdirSync(join(box.gitDir, 'refs/rein/sessions')).filter((name) => name.endsWith('.lock'))).toEqual([])
  })

  it('a ref whose lock another process holds is moved by git instead, once the lock is free', async () => {
    const box = workspace()
    const engine = engineFor(box, 'session-a')
    await engine.snapshot()
    // A lock no live git holds (left by a killed process): the write in place is not tried, git's update heals it.
    writeFileSync(join(box.gitDir, 'HEAD.lock'), '')
    writeFileSync(join(box.cwd, 'a.txt'), 'changed\n')
    const second = await engine.snapshot()
    expect(shadow(box.gitDir, 'rev-parse', 'refs/rein/sessions/session-a', 'HEAD').split('\n')).toEqual([second.commit, second.commit])
    expect(existsSync(join(box.gitDir, 'HEAD.lock'))).toBe(false)
    expect(engine.takeNotices().join(' ')).toMatch(/stale lock/)
  })

  it('HEAD is detached at the latest snapshot of any session', async () => {
    const box = workspace()
    await engineFor(box, 'session-a').snapshot()
    writeFileSync(join(box.cwd, 'a.txt'), 'changed\n')
    const b = await engineFor(box, 'session-b').snapshot()
    expect(readFileSync(join(box.gitDir, 'HEAD'), 'utf8').trim()).toBe(b.commit)
  })

  it('a snapshot after another process snapshotted a change records the workspace as it is, not as this engine last saw it', async () => {
    const box = workspace()
    const mine = engineFor(box, 'session-a')
    const before = await mine.snapshot()
    writeFileSync(join(box.cwd, 'a.txt'), 'written while another session ran\n')
    await engineFor(box, 'session-b').snapshot()
    const after = await mine.snapshot()
    expect(after.commit).not.toBe(before.commit)
    expect(shadow(box.gitDir, 'show', `${after.commit}:a.txt`)).toBe('written while another session ran')
    expect(shadow(box.gitDir, 'rev-parse', `${after.commit}^`)).toBe(before.commit)
  })

  it("a session id that could name a ref outside refs/rein/sessions is refused before anything is written", async () => {
    const box = workspace()
    await expect(engineFor(box, '../../heads/main').snapshot()).rejects.toThrow(/cannot name a checkpoint ref/)
    await expect(engineFor(box, 'x.lock').snapshot()).rejects.toThrow(/cannot name a checkpoint ref/)
    expect(existsSync(box.gitDir)).toBe(false)
  })

  it('a session whose ref was pruned while it ran starts a new chain and its snapshots stay restorable', async () => {
    const box = workspace()
    const engine = engineFor(box, 'session-a')
    const first = await engine.snapshot()
    writeFileSync(join(box.cwd, 'a.txt'), 'second\n')
    await engineFor(box, 'session-b').snapshot()
    shadow(box.gitDir, 'update-ref', '-d', 'refs/rein/sessions/session-a')
    shadow(box.gitDir, 'gc', '--prune=now', '--quiet')
    expect(hasObject(box.gitDir, first.commit)).toBe(false)
    writeFileSync(join(box.cwd, 'a.txt'), 'third\n')
    const next = await engine.snapshot()
    expect(shadow(box.gitDir, 'rev-list', 'refs/rein/sessions/session-a')).toBe(next.commit)
    writeFileSync(join(box.cwd, 'a.txt'), 'fourth\n')
    await engine.restore(next.commit)
    expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('third\n')
  })

  it('a repository from before per-session refs keeps its snapshots restorable and new sessions get refs of their own', async () => {
    const box = workspace()
    // The old layout: one chain on refs/rein/checkpoints, HEAD a symbolic ref to it.
    const legacy = await engineFor(box).snapshot()
    shadow(box.gitDir, 'symbolic-ref', 'HEAD', 'refs/rein/checkpoints')
    writeFileSync(join(box.cwd, 'a.txt'), 'after the upgrade\n')
    const engine = engineFor(box, 'session-new')
    const fresh = await engine.snapshot()
    expect(shadow(box.gitDir, 'rev-parse', 'refs/rein/checkpoints')).toBe(legacy.commit)
    expect(readFileSync(join(box.gitDir, 'HEAD'), 'utf8').trim()).toBe(fresh.commit)
    expect(sessionRefs(box.gitDir)).toEqual(['refs/rein/sessions/session-new'])
    await engine.restore(legacy.commit)
    expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('alpha\n')
  })
})
