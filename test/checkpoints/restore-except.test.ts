import { describe, expect, it } from 'vitest'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Checkpoints } from '../../src/checkpoints/engine.js'

function workspace(): { cwd: string; engine: Checkpoints } {
  const root = mkdtempSync(join(tmpdir(), 'rein-restore-except-'))
  const cwd = join(root, 'project')
  mkdirSync(cwd)
  return { cwd, engine: new Checkpoints({ home: join(root, 'home'), cwd }) }
}

describe('Checkpoints.restoreExcept', () => {
  it('restores every path but the kept ones, which keep their content, absence and mode', async () => {
    const { cwd, engine } = workspace()
    writeFileSync(join(cwd, 'a.txt'), 'a1\n')
    writeFileSync(join(cwd, 'keep.txt'), 'k1\n')
    writeFileSync(join(cwd, 'gone-kept.txt'), 'g1\n')
    const snapshot = await engine.snapshot()
    writeFileSync(join(cwd, 'a.txt'), 'a2\n')
    writeFileSync(join(cwd, 'keep.txt'), 'k2\n')
    chmodSync(join(cwd, 'keep.txt'), 0o755)
    writeFileSync(join(cwd, 'new.txt'), 'n\n')
    writeFileSync(join(cwd, 'new-kept.txt'), 'nk\n')
    rmSync(join(cwd, 'gone-kept.txt'))

    const changed = await engine.restoreExcept(snapshot.commit, ['keep.txt', 'new-kept.txt', 'gone-kept.txt'])
    expect(changed).toEqual([
      { path: 'a.txt', kind: 'modified' },
      { path: 'new.txt', kind: 'added' },
    ])
    expect(readFileSync(join(cwd, 'a.txt'), 'utf8')).toBe('a1\n')
    expect(existsSync(join(cwd, 'new.txt'))).toBe(false)
    expect(readFileSync(join(cwd, 'keep.txt'), 'utf8')).toBe('k2\n')
    expect(statSync(join(cwd, 'keep.txt')).mode & 0o111).not.toBe(0)
    expect(readFileSync(join(cwd, 'new-kept.txt'), 'utf8')).toBe('nk\n')
    expect(existsSync(join(cwd, 'gone-kept.txt'))).toBe(false)
  })

  it('compare names the content on both sides, and finds nothing after a full restore', async () => {
    const { cwd, engine } = workspace()
    writeFileSync(join(cwd, 'a.txt'), 'a1\n')
    const first = await engine.snapshot()
    writeFileSync(join(cwd, 'a.txt'), 'a2\n')
    const [diff] = await engine.compare(first.commit)
    expect(diff).toMatchObject({ path: 'a.txt', kind: 'modified', nowMode: '100644' })
    expect(diff.was).toMatch(/^[0-9a-f]{40}$/)
    expect(diff.now).not.toBe(diff.was)
    await engine.restoreExcept(first.commit, [])
    expect(await engine.compare(first.commit)).toEqual([])
  })

  it('hasSnapshot tells a stored snapshot from an unknown commit', async () => {
    const { cwd, engine } = workspace()
    writeFileSync(join(cwd, 'a.txt'), 'a\n')
    const { commit } = await engine.snapshot()
    expect(await engine.hasSnapshot(commit)).toBe(true)
    expect(await engine.hasSnapshot('0123456789abcdef0123456789abcdef01234567')).toBe(false)
  })
})
