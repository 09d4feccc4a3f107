import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Checkpoints } from '../../src/checkpoints/engine.js'
import { SnapshotFiles } from '../../src/checkpoints/file-at.js'
import { parseRewindSlash } from '../../src/checkpoints/rewind-slash.js'
import { stepChanges, stepFiles, unifiedStepDiff } from '../../src/checkpoints/step-diff.js'
import type { SessionEvent } from '../../src/session/events.js'

function workspace() {
  const root = mkdtempSync(join(tmpdir(), 'rein-step-diff-'))
  const cwd = join(root, 'project')
  const home = join(root, 'home')
  mkdirSync(cwd)
  mkdirSync(home)
  writeFileSync(join(root, 'secret.txt'), 'outside\n')
  const engine = new Checkpoints({ home, cwd })
  return { root, cwd, engine, files: new SnapshotFiles(engine.gitDir, cwd) }
}

const ev = (seq: number, type: string, data: unknown): SessionEvent => ({ seq, time: 0, type, data }) as SessionEvent

describe('a step’s diff from its snapshot', () => {
  it('diffs the snapshot before the step against the next snapshot the log names, not the workspace now', async () => {
    const { cwd, engine, files } = workspace()
    writeFileSync(join(cwd, 'a.txt'), 'one\n')
    const before = await engine.snapshot()
    writeFileSync(join(cwd, 'a.txt'), 'two\n')
    const next = await engine.snapshot()
    writeFileSync(join(cwd, 'a.txt'), 'three\n')
    const events = [
      ev(0, 'checkpoint/created', { turn: 1, step: 1, commit: before.commit, files: 1 }),
      ev(1, 'checkpoint/changes', { turn: 1, step: 1, paths: [{ path: 'a.txt', kind: 'modified' }] }),
      ev(2, 'checkpoint/created', { turn: 1, step: 2, commit: next.commit, files: 1 }),
    ]
    const changes = stepChanges(events, 1, 1)
    expect(changes?.after).toBe(next.commit)
    const diff = unifiedStepDiff(await stepFiles(files, changes!))
    expect(diff).toContain('-one\n+two')
    expect(diff).not.toContain('three')
    expect(stepChanges(events, 1, 2)).toBeUndefined()
  })

  it('reads a path a log names outside the workspace, or through a linked directory, as absent', async () => {
    const { root, cwd, engine, files } = workspace()
    writeFileSync(join(cwd, 'a.txt'), 'one\n')
    const before = await engine.snapshot()
    symlinkSync(root, join(cwd, 'up'))
    const found = await stepFiles(files, {
      before: before.commit,
      after: 'workspace',
      paths: [
        { path: '../secret.txt', kind: 'added' },
        { path: 'up/secret.txt', kind: 'added' },
      ],
    })
    expect(found.map((f) => [f.old.kind, f.new.kind])).toEqual([
      ['absent', 'absent'],
      ['absent', 'absent'],
    ])
  })

  it('calls a file with a NUL byte binary and one over the cap too large, without reading it whole', async () => {
    const { cwd, engine, files } = workspace()
    writeFileSync(join(cwd, 'blob.bin'), Buffer.from([1, 0, 2]))
    writeFileSync(join(cwd, 'big.txt'), 'x'.repeat(2000))
    const before = await engine.snapshot()
    const versions = await files.at(before.commit, ['blob.bin', 'big.txt', 'missing.txt'], 1000)
    expect(versions.get('blob.bin')).toEqual({ kind: 'binary', bytes: 3 })
    expect(versions.get('big.txt')).toEqual({ kind: 'too-large', bytes: 2000 })
    expect(versions.get('missing.txt')).toEqual({ kind: 'absent' })
  })
})

describe('the /rewind argument', () => {
  it('reads nothing, undo, a turn, and a turn with code or conversation', () => {
    expect(parseRewindSlash('')).toEqual({ kind: 'list' })
    expect(parseRewindSlash(' UNDO ')).toEqual({ kind: 'undo' })
    expect(parseRewindSlash('3')).toEqual({ kind: 'turn', turn: 3 })
    expect(parseRewindSlash('3 code')).toEqual({ kind: 'turn', turn: 3, scope: 'code' })
    expect(parseRewindSlash('3 conversation')).toEqual({ kind: 'turn', turn: 3, scope: 'conversation' })
  })

  it('refuses a turn of zero, a negative or fractional turn, and extra words, each with the grammar', () => {
    for (const bad of ['0', '-1', '2.5', 'last', '3 files', '3 code now']) {
      const parsed = parseRewindSlash(bad)
      expect(parsed.kind).toBe('error')
      expect(parsed.kind === 'error' && parsed.message).toMatch(/\/rewind alone lists the turns/)
    }
  })
})
