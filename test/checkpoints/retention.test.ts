import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { planRetention, pruneRepository, snapshotRefs, type SnapshotRef } from '../../src/checkpoints/retention.js'
import { RETENTION_STAMP, retentionDue, startRetention } from '../../src/checkpoints/retention-schedule.js'
import { ageObjects, backdate, blobOf, engineFor, fingerprint, hasObject, sessionRefs, shadow, workspace, writeLooseBlob } from './shadow-support.js'

const DAY = 24 * 60 * 60 * 1000
const NOW = Date.UTC(2026, 5, 1)

function unit(session: string | null, daysOld: number): SnapshotRef {
  return { ref: session ? `refs/rein/sessions/${session}` : 'refs/rein/checkpoints', session, commit: `c-${session}`, time: NOW - daysOld * DAY }
}

const names = (refs: SnapshotRef[]) => refs.map((r) => r.session).sort()

describe('retention rules', () => {
  it('keeps the N most recent sessions whatever their age', () => {
    const plan = planRetention([unit('a', 90), unit('b', 60), unit('c', 45)], { keepSessions: 2, keepDays: 30 }, NOW)
    expect(names(plan.keep)).toEqual(['b', 'c'])
    expect(names(plan.remove)).toEqual(['a'])
  })

  it('keeps every session younger than M days however many there are', () => {
    const plan = planRetention([unit('a', 1), unit('b', 2), unit('c', 3), unit('d', 40)], { keepSessions: 1, keepDays: 30 }, NOW)
    expect(names(plan.keep)).toEqual(['a', 'b', 'c'])
    expect(names(plan.remove)).toEqual(['d'])
  })

  it('removes a session only when neither rule keeps it', () => {
    const plan = planRetention([unit('a', 0.5), unit('b', 31), unit('c', 32)], { keepSessions: 2, keepDays: 30 }, NOW)
    expect(names(plan.remove)).toEqual(['c'])
  })

  it('never removes the session being opened', () => {
    const plan = planRetention([unit('a', 1), unit('open', 100)], { keepSessions: 1, keepDays: 0 }, NOW, new Set(['open']))
    expect(plan.remove).toEqual([])
  })

  it('judges the chain from before per-session refs as one unit by its newest snapshot', () => {
    const plan = planRetention([unit(null, 50), unit('a', 1)], { keepSessions: 1, keepDays: 30 }, NOW)
    expect(plan.remove.map((r) => r.ref)).toEqual(['refs/rein/checkpoints'])
  })

  it('with both rules at zero removes every session', () => {
    const plan = planRetention([unit('a', 0), unit('b', 0)], { keepSessions: 0, keepDays: 0 }, NOW)
    expect(plan.keep).toEqual([])
  })
})

describe('pruning a shadow repository', () => {
  it("removes a pruned session's ref and the objects only it reached, and leaves the other session's snapshots restorable", async () => {
    const box = workspace()
    writeFileSync(join(box.cwd, 'only-old.txt'), 'content only the old session saw\n')
    await engineFor(box, 'old').snapshot()
    backdate(box.gitDir, 'refs/rein/sessions/old', 60)
    const onlyOld = blobOf(box.gitDir, 'content only the old session saw\n')
    expect(hasObject(box.gitDir, onlyOld)).toBe(true)

    writeFileSync(join(box.cwd, 'only-old.txt'), 'replaced\n')
    const kept = engineFor(box, 'new')
    const first = await kept.snapshot()
    writeFileSync(join(box.cwd, 'a.txt'), 'second version\n')
    await kept.snapshot()
    ageObjects(box.gitDir, 60)

    const report = await pruneRepository({ gitDir: box.gitDir, rules: { keepSessions: 1, keepDays: 30 }, now: Date.now(), gc: 'wait' })
    expect(report.removed.map((r) => r.session)).toEqual(['old'])
    expect(report.kept.map((r) => r.session)).toEqual(['new'])
    expect(report.workspace).toBe(box.cwd)
    expect(report.bytesAfter).toBeTypeOf('number')
    expect(sessionRefs(box.gitDir)).toEqual(['refs/rein/sessions/new'])
    expect(hasObject(box.gitDir, onlyOld)).toBe(false)

    await kept.restore(first.commit)
    expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('alpha\n')
    expect(readFileSync(join(box.cwd, 'only-old.txt'), 'utf8')).toBe('replaced\n')
  })

  it('keeps the objects another process is writing for a snapshot it has not recorded yet', async () => {
    const box = workspace()
    await engineFor(box, 'old').snapshot()
    backdate(box.gitDir, 'refs/rein/sessions/old', 60)
    await engineFor(box, 'new').snapshot()
    ageObjects(box.gitDir, 60)
    const inFlight = writeLooseBlob(box.gitDir, 'written by a snapshot still in progress\n')
    const report = await pruneRepository({ gitDir: box.gitDir, rules: { keepSessions: 1, keepDays: 30 }, now: Date.now(), gc: 'wait' })
    expect(report.removed).toHaveLength(1)
    expect(hasObject(box.gitDir, inFlight)).toBe(true)
  })

  it('a dry run says what it would remove and changes nothing', async () => {
    const box = workspace()
    await engineFor(box, 'old').snapshot()
    backdate(box.gitDir, 'refs/rein/sessions/old', 60)
    await engineFor(box, 'new').snapshot()
    const before = fingerprint(box.gitDir)
    const report = await pruneRepository({ gitDir: box.gitDir, rules: { keepSessions: 1, keepDays: 30 }, now: Date.now(), gc: 'wait', dryRun: true })
    expect(report.removed.map((r) => r.session)).toEqual(['old'])
    expect(fingerprint(box.gitDir)).toEqual(before)
  })

  it('a session that snapshotted after it was judged is not removed', async () => {
    const box = workspace()
    await engineFor(box, 'old').snapshot()
    const judged = backdate(box.gitDir, 'refs/rein/sessions/old', 60)
    await engineFor(box, 'new').snapshot()
    const refs = await snapshotRefs({ gitDir: box.gitDir })
    expect(refs.find((r) => r.session === 'old')?.commit).toBe(judged)
    // The old session moves on between the listing and the delete: the delete is conditional on `judged`.
    shadow(box.gitDir, 'update-ref', 'refs/rein/sessions/old', shadow(box.gitDir, 'rev-parse', 'refs/rein/sessions/new'))
    const report = await pruneRepository({ gitDir: box.gitDir, rules: { keepSessions: 1, keepDays: 30 }, now: Date.now(), gc: 'wait' })
    expect(report.removed).toEqual([])
    expect(sessionRefs(box.gitDir)).toEqual(['refs/rein/sessions/new', 'refs/rein/sessions/old'])
  })

  it("leaves the user's .git byte-identical", async () => {
    const box = workspace()
    shadow(join(box.cwd, '.git'), 'init', '--quiet')
    shadow(join(box.cwd, '.git'), `--work-tree=${box.cwd}`, 'add', 'a.txt')
    shadow(join(box.cwd, '.git'), `--work-tree=${box.cwd}`, 'commit', '--quiet', '-m', 'user commit')
    const before = fingerprint(join(box.cwd, '.git'))
    await engineFor(box, 'old').snapshot()
    backdate(box.gitDir, 'refs/rein/sessions/old', 60)
    writeFileSync(join(box.cwd, 'a.txt'), 'edited\n')
    await engineFor(box, 'new').snapshot()
    const report = await pruneRepository({ gitDir: box.gitDir, rules: { keepSessions: 1, keepDays: 30 }, now: Date.now(), gc: 'wait' })
    expect(report.removed).toHaveLength(1)
    expect(fingerprint(join(box.cwd, '.git'))).toEqual(before)
  })

  it('prunes the chain an older Rein wrote, reflogs and all', async () => {
    const box = workspace()
    writeFileSync(join(box.cwd, 'legacy.txt'), 'from before the upgrade\n')
    await engineFor(box).snapshot()
    backdate(box.gitDir, 'refs/rein/checkpoints', 90)
    // The older layout: HEAD symbolic to the chain, and a reflog naming every snapshot.
    shadow(box.gitDir, 'symbolic-ref', 'HEAD', 'refs/rein/checkpoints')
    mkdirSync(join(box.gitDir, 'logs', 'refs', 'rein'), { recursive: true })
    const tip = shadow(box.gitDir, 'rev-parse', 'refs/rein/checkpoints')
    writeFileSync(join(box.gitDir, 'logs', 'refs', 'rein', 'checkpoints'), `${'0'.repeat(40)} ${tip} Rein <checkpoints@rein.invalid> 1700000000 +0000\tcheckpoint\n`)
    const legacyBlob = blobOf(box.gitDir, 'from before the upgrade\n')
    writeFileSync(join(box.cwd, 'legacy.txt'), 'now\n')
    await engineFor(box, 'new').snapshot()
    ageObjects(box.gitDir, 90)
    const report = await pruneRepository({ gitDir: box.gitDir, rules: { keepSessions: 1, keepDays: 30 }, now: Date.now(), gc: 'wait' })
    expect(report.removed.map((r) => r.ref)).toEqual(['refs/rein/checkpoints'])
    expect(hasObject(box.gitDir, legacyBlob)).toBe(false)
  })

  it('a shadow repository that is corrupt is reported in one sentence and left as it was', async () => {
    const box = workspace()
    await engineFor(box, 'a').snapshot()
    writeFileSync(join(box.gitDir, 'HEAD'), 'garbage\n')
    const before = fingerprint(box.gitDir)
    const failure = pruneRepository({ gitDir: box.gitDir, rules: { keepSessions: 0, keepDays: 0 }, now: Date.now(), gc: 'wait' })
    await expect(failure).rejects.toThrow(/^The checkpoint repository .* is damaged \(.*\); delete that directory to start afresh \(its snapshots cannot be restored\)\.$/)
    expect(fingerprint(box.gitDir)).toEqual(before)
  })
})

describe('retention on session open', () => {
  it('is not due where no shadow repository exists, and creates none', () => {
    const box = workspace()
    expect(retentionDue(box.gitDir, NOW)).toBe(false)
    expect(startRetention({ home: box.home, cwd: box.cwd, rules: { keepSessions: 0, keepDays: 0 }, keep: 'x', now: NOW })).toBeUndefined()
    expect(existsSync(box.gitDir)).toBe(false)
  })

  it('runs at most once a day per workspace, by the stamp in the shadow repository', async () => {
    const box = workspace()
    await engineFor(box, 'open').snapshot()
    const now = Date.now()
    expect(retentionDue(box.gitDir, now)).toBe(true)
    await startRetention({ home: box.home, cwd: box.cwd, rules: { keepSessions: 20, keepDays: 30 }, keep: 'open', now })
    expect(readFileSync(join(box.gitDir, RETENTION_STAMP), 'utf8').trim()).toBe(String(now))
    expect(retentionDue(box.gitDir, now + 23 * 60 * 60 * 1000)).toBe(false)
    expect(startRetention({ home: box.home, cwd: box.cwd, rules: { keepSessions: 20, keepDays: 30 }, keep: 'open', now: now + DAY / 2 })).toBeUndefined()
    expect(retentionDue(box.gitDir, now + DAY)).toBe(true)
    expect(retentionDue(box.gitDir, now - 2 * DAY)).toBe(true)
  })

  it('prunes old sessions in the background but never the one being opened', async () => {
    const box = workspace()
    await engineFor(box, 'stale').snapshot()
    backdate(box.gitDir, 'refs/rein/sessions/stale', 60)
    await engineFor(box, 'opening').snapshot()
    backdate(box.gitDir, 'refs/rein/sessions/opening', 90)
    await startRetention({ home: box.home, cwd: box.cwd, rules: { keepSessions: 0, keepDays: 30 }, keep: 'opening' })
    expect(sessionRefs(box.gitDir)).toEqual(['refs/rein/sessions/opening'])
  })

  it('an unreadable stamp counts as due', async () => {
    const box = workspace()
    await engineFor(box, 'a').snapshot()
    writeFileSync(join(box.gitDir, RETENTION_STAMP), 'not a time\n')
    expect(retentionDue(box.gitDir, NOW)).toBe(true)
  })
})
