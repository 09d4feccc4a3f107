import { afterEach, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, statfsSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Checkpoints } from '../../src/checkpoints/engine.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { sandbox } from '../support/cli.js'
import { prompt, rein, sessionLog, sessions, type RewindBox } from './rewind-support.js'
import { fingerprint, shadow } from './shadow-support.js'

let mock: MockModel | undefined
const mounted: string[] = []
afterEach(async () => {
  await mock?.close()
  mock = undefined
  for (const dir of mounted.splice(0).reverse()) execFileSync('umount', [dir])
})

/** Mounting a tmpfs needs root (test/cli/disk-full.test.ts mounts the same way). */
const canMount = process.getuid?.() === 0

function mountSmall(dir: string, size: string): void {
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir])
  mounted.push(dir)
}

/** Fills the file system holding `dir` but for `leave` bytes, with a file at `file`; returns its path. */
function fill(dir: string, file: string, leave = 0): string {
  const stats = statfsSync(dir)
  writeFileSync(file, Buffer.alloc(Math.max(0, Number(stats.bavail) * Number(stats.bsize) - leave)))
  return file
}

/** The loose objects of a repository no ref and no index entry reaches. */
function unreachableLoose(gitDir: string): string[] {
  const out = shadow(gitDir, 'fsck', '--unreachable', '--no-reflogs', '--no-progress')
  return out.split('\n').filter((l) => l.startsWith('unreachable blob'))
}

function withoutIgnored(print: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(print).filter(([path]) => !path.startsWith('node_modules/')))
}

describe.runIf(canMount)('a full disk', () => {
  it('on $REIN_HOME, a snapshot whose git add fails leaves no orphan blob keeping the disk full', async () => {
    const box = sandbox()
    mountSmall(box.home, '3m')
    writeFileSync(join(box.cwd, 'a.txt'), 'alpha\n')
    const engine = new Checkpoints({ home: box.home, cwd: box.cwd, sessionId: 'disk' })
    await engine.snapshot()
    const free = Number(statfsSync(box.home).bavail)
    // Incompressible files, more than the disk holds: git add fails part way through writing their blobs.
    for (let i = 0; i < 8; i++) writeFileSync(join(box.cwd, `blob${i}.bin`), randomBytes(512 * 1024))

    await expect(engine.snapshot()).rejects.toThrow(/git add/)
    expect(unreachableLoose(engine.gitDir)).toEqual([])
    expect(Number(statfsSync(box.home).bavail)).toBeGreaterThanOrEqual(free - 8)
    // With room again (fewer files), the next snapshot works.
    for (let i = 2; i < 8; i++) unlinkSync(join(box.cwd, `blob${i}.bin`))
    const snap = await engine.snapshot()
    expect(shadow(engine.gitDir, 'ls-tree', '--name-only', snap.commit).split('\n').sort()).toEqual(['a.txt', 'blob0.bin', 'blob1.bin'])
  }, 60_000)

  it('on $REIN_HOME during a rewind, nothing is changed and the sentence says so; with room again the rewind works', async () => {
    const box = sandbox()
    mountSmall(box.home, '4m')
    for (let i = 0; i < 5; i++) writeFileSync(join(box.cwd, `f${i}.txt`), `original ${i}\n`)
    mock = await startMockModel({ script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'for i in 0 1 2 3 4; do echo agent > f$i.txt; done; echo new > g.txt' } }] }, { text: 'done' }] })
    const rb: RewindBox = { cwd: box.cwd, home: box.home, url: mock.url }
    await prompt(rb, 'change them')
    const [session] = sessions(box.home)
    const before = fingerprint(box.cwd)
    // From almost no room to a little: each attempt fails before touching a file, until one has room and restores.
    // (At no room at all the session's lease cannot be written, a refusal of the store's that leaves the empty
    // lease file behind until it goes stale: not a rewind's concern, so it is not tried here.)
    let refused = 0
    let restored = false
    for (const leave of [4096, 8192, 12288, 16384, 20480, 32768]) {
      const filler = fill(box.home, join(box.home, 'filler'), leave)
      const r = await rein(rb, ['rewind', session.id, '--to', '1', '--code', '--overwrite'])
      unlinkSync(filler)
      if (r.code === 0) {
        restored = true
        break
      }
      refused++
      expect(r.code).toBe(1)
      // Node's own warnings (a session subscriber such as the resume sidecar failing on the full disk) aside.
      const lines = r.stderr.trim().split('\n').filter((l) => !/^\(node:\d+\) Warning|^\(Use `node/.test(l))
      expect(lines, r.stderr).toHaveLength(1)
      expect(lines[0]).toMatch(/^rein: Nothing was changed: (the snapshot taken before rewinding to turn 1 failed|the undo point for rewinding to turn 1 could not be written to the session log|comparing the workspace)/)
      expect(fingerprint(box.cwd)).toEqual(before)
    }
    expect(refused).toBeGreaterThan(1)

    if (!restored) {
      const again = await rein(rb, ['rewind', session.id, '--to', '1', '--code', '--overwrite'])
      expect(again.code, again.stderr).toBe(0)
    }
    expect(readFileSync(join(box.cwd, 'f0.txt'), 'utf8')).toBe('original 0\n')
    const undo = await rein(rb, ['rewind', session.id, '--undo', '--overwrite'])
    expect(undo.code, undo.stderr).toBe(0)
    expect(fingerprint(box.cwd)).toEqual(before)
  }, 60_000)

  it('on the workspace during a restore, it stops part way naming what was and was not put back, and one --undo brings back the state before', async () => {
    const box = sandbox()
    mountSmall(box.cwd, '2m')
    writeFileSync(join(box.cwd, 'a-small.txt'), 'small\n')
    writeFileSync(join(box.cwd, 'big.bin'), randomBytes(700 * 1024))
    mock = await startMockModel({ script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo agent > a-small.txt && rm big.bin && echo z > z-new.txt' } }] }, { text: 'done' }] })
    const rb: RewindBox = { cwd: box.cwd, home: box.home, url: mock.url }
    await prompt(rb, 'change them')
    const [session] = sessions(box.home)
    // The user fills the workspace's disk with something no snapshot holds.
    mkdirSync(join(box.cwd, 'node_modules'))
    const filler = fill(box.cwd, join(box.cwd, 'node_modules', 'filler'), 64 * 1024)
    const before = withoutIgnored(fingerprint(box.cwd))

    const r = await rein(rb, ['rewind', session.id, '--to', '1', '--code', '--overwrite'])
    expect(r.code).toBe(1)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).toContain('Rewinding to turn 1 stopped part way (')
    expect(r.stderr).toContain('put back a-small.txt; not put back big.bin, z-new.txt;')
    expect(r.stderr).toContain(`\`rein rewind ${session.id} --undo\` puts every file back as it was before.`)
    expect(readdirSync(box.cwd).filter((n) => n.startsWith('.~rein-'))).toEqual([])
    // The next open says the rewind was interrupted, and how to finish or undo it.
    const dry = await rein(rb, ['rewind', session.id, '--to', '1', '--code', '--dry-run'])
    expect(dry.stdout).toContain(`The rewind of session ${session.id} to turn 1 was interrupted part way`)

    unlinkSync(filler)
    const undo = await rein(rb, ['rewind', session.id, '--undo', '--overwrite'])
    expect(undo.code, undo.stderr).toBe(0)
    expect(undo.stdout).toContain('Undid the interrupted rewind to turn 1')
    expect(withoutIgnored(fingerprint(box.cwd))).toEqual(before)
    const log = sessionLog(box.home, session.id)
    expect(log.filter((e) => e.type === 'checkpoint/undo-point')).toHaveLength(2)
    const verify = await rein(rb, ['sessions', 'verify', session.id])
    expect(verify.code, verify.stdout + verify.stderr).toBe(0)
  }, 60_000)

  it('on the workspace during a snapshot, the snapshot still works (it writes nothing there)', async () => {
    const box = sandbox()
    mountSmall(box.cwd, '1m')
    writeFileSync(join(box.cwd, 'a.txt'), 'alpha\n')
    mkdirSync(join(box.cwd, 'node_modules'))
    fill(box.cwd, join(box.cwd, 'node_modules', 'filler'))
    mock = await startMockModel({ script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo b > a.txt || true' } }] }, { text: 'done' }] })
    await prompt({ cwd: box.cwd, home: box.home, url: mock.url }, 'try')
    const [session] = sessions(box.home)
    const created = session.events.find((e) => e.type === 'checkpoint/created')
    expect(created?.type === 'checkpoint/created' && created.data.commit).toMatch(/^[0-9a-f]{40}$/)
    expect(existsSync(join(box.cwd, 'a.txt'))).toBe(true)
  }, 60_000)
})
