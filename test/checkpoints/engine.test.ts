import { execFileSync } from 'node:child_process'
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Checkpoints, type Change } from '../../src/checkpoints/engine.js'

function workspace(): { cwd: string; home: string; engine: Checkpoints } {
  const root = mkdtempSync(join(tmpdir(), 'rein-checkpoints-'))
  const cwd = join(root, 'project')
  const home = join(root, 'home')
  mkdirSync(cwd)
  mkdirSync(home)
  writeFileSync(join(cwd, 'a.txt'), 'alpha\n')
  mkdirSync(join(cwd, 'src', 'deep'), { recursive: true })
  writeFileSync(join(cwd, 'src', 'main.ts'), 'export const x = 1\n')
  writeFileSync(join(cwd, 'src', 'deep', 'b.txt'), 'beta\n')
  return { cwd, home, engine: new Checkpoints({ home, cwd, maxFileBytes: 1024 }) }
}

function sh(cwd: string, command: string): void {
  execFileSync('bash', ['-c', command], { cwd, stdio: 'pipe' })
}

function sorted(changes: Change[]): Change[] {
  return [...changes].sort((a, b) => a.path.localeCompare(b.path))
}

describe('checkpoint engine', () => {
  it('an edit made with sed -i shows as modified and a restore brings the old text back', async () => {
    const { cwd, engine } = workspace()
    const before = await engine.snapshot()
    sh(cwd, "sed -i 's/alpha/ALPHA/' a.txt")
    expect(await engine.changesSince(before.commit)).toEqual([{ path: 'a.txt', kind: 'modified' }])
    await engine.restore(before.commit)
    expect(readFileSync(join(cwd, 'a.txt'), 'utf8')).toBe('alpha\n')
  })

  it('rm and mv show as deletions and additions, and a restore undoes both', async () => {
    const { cwd, engine } = workspace()
    const before = await engine.snapshot()
    sh(cwd, 'rm a.txt && mv src/main.ts src/moved.ts')
    expect(sorted(await engine.changesSince(before.commit))).toEqual([
      { path: 'a.txt', kind: 'deleted' },
      { path: 'src/main.ts', kind: 'deleted' },
      { path: 'src/moved.ts', kind: 'added' },
    ])
    await engine.restore(before.commit)
    expect(readFileSync(join(cwd, 'a.txt'), 'utf8')).toBe('alpha\n')
    expect(readFileSync(join(cwd, 'src', 'main.ts'), 'utf8')).toBe('export const x = 1\n')
    expect(existsSync(join(cwd, 'src', 'moved.ts'))).toBe(false)
  })

  it('a new untracked file is recorded as added and a restore removes it with the directories it made', async () => {
    const { cwd, engine } = workspace()
    const before = await engine.snapshot()
    sh(cwd, 'mkdir -p fresh/inner && echo new > fresh/inner/n.txt')
    expect(await engine.changesSince(before.commit)).toEqual([{ path: 'fresh/inner/n.txt', kind: 'added' }])
    await engine.restore(before.commit)
    expect(existsSync(join(cwd, 'fresh'))).toBe(false)
  })

  it('a binary file is restored byte for byte', async () => {
    const { cwd, engine } = workspace()
    const bytes = Buffer.from([0, 1, 2, 255, 13, 10, 0, 128, 13, 10])
    writeFileSync(join(cwd, 'blob.bin'), bytes)
    const before = await engine.snapshot()
    writeFileSync(join(cwd, 'blob.bin'), Buffer.from([9, 9, 9]))
    expect(await engine.changesSince(before.commit)).toEqual([{ path: 'blob.bin', kind: 'modified' }])
    await engine.restore(before.commit)
    expect(readFileSync(join(cwd, 'blob.bin')).equals(bytes)).toBe(true)
  })

  it('a deleted directory comes back with all its files', async () => {
    const { cwd, engine } = workspace()
    const before = await engine.snapshot()
    sh(cwd, 'rm -rf src')
    expect(sorted(await engine.changesSince(before.commit))).toEqual([
      { path: 'src/deep/b.txt', kind: 'deleted' },
      { path: 'src/main.ts', kind: 'deleted' },
    ])
    await engine.restore(before.commit)
    expect(readFileSync(join(cwd, 'src', 'deep', 'b.txt'), 'utf8')).toBe('beta\n')
  })

  it('a symlink is recorded as a link, not followed, and restored as the same link', async () => {
    const { cwd, engine } = workspace()
    sh(cwd, 'ln -s a.txt link')
    const before = await engine.snapshot()
    sh(cwd, 'rm link && ln -s src/main.ts link')
    expect(await engine.changesSince(before.commit)).toEqual([{ path: 'link', kind: 'modified' }])
    await engine.restore(before.commit)
    expect(lstatSync(join(cwd, 'link')).isSymbolicLink()).toBe(true)
    expect(readlinkSync(join(cwd, 'link'))).toBe('a.txt')
  })

  it('a file over the size limit is named as skipped and a restore leaves it alone', async () => {
    const { cwd, engine } = workspace()
    const before = await engine.snapshot()
    writeFileSync(join(cwd, 'huge.log'), 'x'.repeat(4096))
    const after = await engine.snapshot()
    expect(after.skipped).toEqual([{ path: 'huge.log', reason: 'too-large', bytes: 4096 }])
    expect(after.commit).toBe(before.commit)
    await engine.restore(before.commit)
    expect(readFileSync(join(cwd, 'huge.log'), 'utf8')).toHaveLength(4096)
  })

  it('node_modules and what .gitignore names stay out of snapshots and survive a restore', async () => {
    const { cwd, engine } = workspace()
    sh(cwd, 'mkdir -p node_modules/pkg && echo m > node_modules/pkg/index.js && echo "*.tmp" > .gitignore')
    const before = await engine.snapshot()
    sh(cwd, 'echo t > scratch.tmp && echo n > node_modules/pkg/other.js')
    expect(await engine.changesSince(before.commit)).toEqual([])
    sh(cwd, 'echo changed > a.txt')
    await engine.restore(before.commit)
    expect(readdirSync(join(cwd, 'node_modules', 'pkg')).sort()).toEqual(['index.js', 'other.js'])
    expect(existsSync(join(cwd, 'scratch.tmp'))).toBe(true)
    expect(before.files).toBe(4)
  })

  it('a snapshot when nothing changed returns the previous commit', async () => {
    const { engine } = workspace()
    const first = await engine.snapshot()
    const second = await engine.snapshot()
    expect(second).toEqual(first)
    expect(first.files).toBe(3)
  })

  it('a second engine on the same workspace continues the history the first one wrote', async () => {
    const { cwd, home, engine } = workspace()
    const first = await engine.snapshot()
    const again = new Checkpoints({ home, cwd, maxFileBytes: 1024 })
    expect(await again.snapshot()).toEqual(first)
  })

  it('an inherited GIT_DIR or GIT_INDEX_FILE does not redirect the shadow repository', async () => {
    const { cwd, home } = workspace()
    const decoy = join(cwd, 'decoy')
    const engine = new Checkpoints({ home, cwd, env: { ...process.env, GIT_DIR: decoy, GIT_INDEX_FILE: join(cwd, 'decoy-index') } })
    await engine.snapshot()
    expect(existsSync(decoy)).toBe(false)
    expect(existsSync(join(cwd, 'decoy-index'))).toBe(false)
  })

  it('a restore brings back the executable bit a command removed', async () => {
    const { cwd, engine } = workspace()
    sh(cwd, 'printf "#!/bin/sh\\n" > run.sh && chmod 755 run.sh')
    const before = await engine.snapshot()
    sh(cwd, 'chmod 644 run.sh')
    expect(await engine.changesSince(before.commit)).toEqual([{ path: 'run.sh', kind: 'modified' }])
    await engine.restore(before.commit)
    expect(lstatSync(join(cwd, 'run.sh')).mode & 0o111).not.toBe(0)
  })

  it('file names with spaces, quotes, newlines and leading dashes are recorded and restored exactly', async () => {
    const { cwd, engine } = workspace()
    const before = await engine.snapshot()
    const names = ['with space.txt', 'quote"d.txt', 'new\nline.txt', '-rf', ':(exclude)magic', 'ünïcode.txt']
    for (const name of names) writeFileSync(join(cwd, name), name)
    expect(sorted(await engine.changesSince(before.commit)).map((c) => c.path)).toEqual([...names].sort((a, b) => a.localeCompare(b)))
    await engine.restore(before.commit)
    for (const name of names) expect(existsSync(join(cwd, name))).toBe(false)
  })

  it('an oversized file whose name looks like pathspec magic is still only skipped', async () => {
    const { cwd, engine } = workspace()
    writeFileSync(join(cwd, ':(glob)*'), 'x'.repeat(4096))
    const snapshot = await engine.snapshot()
    expect(snapshot.skipped.map((s) => s.path)).toEqual([':(glob)*'])
    expect(snapshot.files).toBe(3)
  })
})
