import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Checkpoints } from '../../src/checkpoints/engine.js'
import { BULK_PATHS } from '../../src/checkpoints/staging.js'
import { shadow } from './shadow-support.js'

function box(): { root: string; cwd: string } {
  const root = mkdtempSync(join(tmpdir(), 'rein-staging-'))
  const cwd = join(root, 'project')
  mkdirSync(join(cwd, 'src', 'deep'), { recursive: true })
  writeFileSync(join(cwd, 'a.txt'), 'alpha\n')
  writeFileSync(join(cwd, 'src', 'main.ts'), 'export const x = 1\n')
  writeFileSync(join(cwd, 'src', 'deep', 'b.txt'), 'beta\n')
  writeFileSync(join(cwd, '.gitignore'), 'build/\n')
  return { root, cwd }
}

const sh = (cwd: string, command: string): void => void execFileSync('bash', ['-c', command], { cwd, stdio: 'pipe' })

/** The tree a workspace's very first snapshot holds (one `git add` of everything), from a home of its own. */
async function fromScratch(root: string, cwd: string, round: number): Promise<{ tree: string; files: number }> {
  const home = join(root, `scratch-${round}`)
  const engine = new Checkpoints({ home, cwd, sessionId: 'scratch', maxFileBytes: 1024 })
  const snapshot = await engine.snapshot()
  return { tree: shadow(engine.gitDir, 'rev-parse', `${snapshot.commit}^{tree}`), files: snapshot.files }
}

/** Each step's workspace change, as shell; together they cover every kind of record `git status` gives. */
const STEPS: readonly string[] = [
  'echo more >> a.txt',
  'echo new > src/new.ts && mkdir -p fresh/dir && echo x > fresh/dir/f.txt',
  'rm src/deep/b.txt',
  'rm -r src/deep && echo gone > gone.txt',
  'chmod +x src/main.ts && echo y >> src/main.ts',
  'ln -s a.txt link && rm a.txt && echo back > a.txt',
  // A file replaced by a directory of the same name, and a directory by a file.
  'rm gone.txt && mkdir gone.txt && echo inside > gone.txt/in.txt',
  'rm -r fresh && echo plain > fresh',
  // Ignored, oversized (the limit is 1 KiB here) and a nested repository: none is staged.
  'mkdir -p build && echo out > build/o.js && head -c 4096 /dev/zero > big.bin && mkdir nested && git -C nested init -q && echo n > nested/n.txt',
  "printf 'odd' > $'caf\\xe9.txt' && echo ' ' > ' lead' && echo q > 'quote\"d'",
  'mv src/new.ts src/renamed.ts',
  'true',
]

describe('staging only what changed', () => {
  it('after every kind of change, the snapshot holds the very tree (and count) a first snapshot of the same workspace would', async () => {
    const { root, cwd } = box()
    const engine = new Checkpoints({ home: join(root, 'home'), cwd, sessionId: 'steps', maxFileBytes: 1024 })
    let previous = await engine.snapshot()
    for (const [round, step] of STEPS.entries()) {
      sh(cwd, step)
      const compared = await engine.compare(previous.commit)
      const snapshot = await engine.snapshot()
      const tree = shadow(engine.gitDir, 'rev-parse', `${snapshot.commit}^{tree}`)
      const expected = await fromScratch(root, cwd, round)
      expect({ step, tree, files: snapshot.files }).toEqual({ step, ...expected })
      expect(snapshot.files).toBe(shadow(engine.gitDir, 'ls-tree', '-r', '--name-only', tree).split('\n').filter(Boolean).length)
      // What compare listed is what the two snapshots differ by.
      const diffed = (await engine.diff(previous.commit, snapshot.commit)).map((c) => c.path).sort()
      expect(compared.map((c) => c.path).sort()).toEqual(diffed)
      if (step === 'true') expect(snapshot.commit).toBe(previous.commit)
      previous = snapshot
    }
  })

  it('a compare followed by a snapshot with nothing changed in between writes no new tree', async () => {
    const { root, cwd } = box()
    const engine = new Checkpoints({ home: join(root, 'home'), cwd, sessionId: 'reuse' })
    const before = await engine.snapshot()
    writeFileSync(join(cwd, 'a.txt'), 'changed\n')
    const changes = await engine.compare(before.commit)
    expect(changes.map((c) => c.path)).toEqual(['a.txt'])
    const after = await engine.snapshot()
    expect(after.commit).not.toBe(before.commit)
    expect(await engine.snapshot()).toEqual(after)
    expect(await engine.changesSince(after.commit)).toEqual([])
  })

  it('a restore after incremental staging brings back every kind of change', async () => {
    const { root, cwd } = box()
    chmodSync(join(cwd, 'a.txt'), 0o600)
    const engine = new Checkpoints({ home: join(root, 'home'), cwd, sessionId: 'restore', maxFileBytes: 1024 })
    const first = await engine.snapshot()
    const listing = (): string => execFileSync('bash', ['-c', 'find . -path ./nested -prune -o -path ./build -prune -o -print0 | sort -z | xargs -0 stat -c "%n %a %F %s"'], { cwd }).toString()
    const was = listing()
    for (const step of STEPS) {
      sh(cwd, step)
      await engine.snapshot()
    }
    await engine.restore(first.commit)
    rmSync(join(cwd, 'nested'), { recursive: true, force: true })
    rmSync(join(cwd, 'build'), { recursive: true, force: true })
    rmSync(join(cwd, 'big.bin'), { force: true })
    expect(listing()).toBe(was)
  })

  it(`a first snapshot of ${BULK_PATHS} files or more writes their blobs into one pack, not one file each`, async () => {
    const { root, cwd } = box()
    for (let d = 0; d < 12; d++) {
      mkdirSync(join(cwd, 'many', `d${d}`), { recursive: true })
      for (let f = 0; f < 100; f++) writeFileSync(join(cwd, 'many', `d${d}`, `f${f}.txt`), `file ${d}/${f}\n`)
    }
    const engine = new Checkpoints({ home: join(root, 'home'), cwd, sessionId: 'bulk' })
    const snapshot = await engine.snapshot()
    expect(snapshot.files).toBe(1_204)
    const packs = readdirSync(join(engine.gitDir, 'objects', 'pack')).filter((name) => name.endsWith('.pack'))
    expect(packs).toHaveLength(1)
    const counts = Object.fromEntries(shadow(engine.gitDir, 'count-objects', '-v').split('\n').map((line) => line.split(': ')))
    expect(Number(counts['in-pack'])).toBeGreaterThanOrEqual(1_204)
    // The trees and the commit are loose; no blob is.
    expect(Number(counts.count)).toBeLessThan(100)
    expect(await fromScratch(root, cwd, 0)).toEqual({ tree: shadow(engine.gitDir, 'rev-parse', `${snapshot.commit}^{tree}`), files: 1_204 })
  })
})

