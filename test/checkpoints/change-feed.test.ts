import { execFileSync, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync, type FSWatcher } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { Checkpoints, type CheckpointOptions } from '../../src/checkpoints/engine.js'
import { watchTree } from '../../src/fs/change-feed.js'
import { shadow } from './shadow-support.js'

const roots: string[] = []
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true })
})

function box(): { root: string; cwd: string } {
  const root = mkdtempSync(join(tmpdir(), 'rein-feed-'))
  roots.push(root)
  const cwd = join(root, 'project')
  mkdirSync(join(cwd, 'src', 'deep'), { recursive: true })
  writeFileSync(join(cwd, 'a.txt'), 'alpha\n')
  writeFileSync(join(cwd, 'src', 'main.ts'), 'export const x = 1\n')
  writeFileSync(join(cwd, 'src', 'deep', 'b.txt'), 'beta\n')
  writeFileSync(join(cwd, '.gitignore'), 'build/\n')
  return { root, cwd }
}

const sh = (cwd: string, command: string): void => void execFileSync('bash', ['-c', command], { cwd, stdio: 'pipe' })

/** The tree a first snapshot of the workspace as it stands holds (a home of its own: a full walk, nothing reused). */
async function fresh(root: string, cwd: string, label: string): Promise<string> {
  const engine = new Checkpoints({ home: join(root, `fresh-${label}`), cwd, sessionId: 'fresh', maxFileBytes: 1024 })
  const snapshot = await engine.snapshot()
  return shadow(engine.gitDir, 'rev-parse', `${snapshot.commit}^{tree}`)
}

const treeOf = (engine: Checkpoints, commit: string): string => shadow(engine.gitDir, 'rev-parse', `${commit}^{tree}`)

/** An engine with its feed started, as a session opens it, and its first staging done. */
async function watched(root: string, cwd: string, options: Partial<CheckpointOptions> = {}): Promise<Checkpoints> {
  const engine = new Checkpoints({ home: join(root, 'home'), cwd, sessionId: 'steps', maxFileBytes: 1024, ...options })
  engine.watch()
  await engine.settled()
  return engine
}

/**
 * One step as the extension runs it: the snapshot before (reusing the last listing when the feed is quiet), the
 * tools' change, the listing after, and then what happens while the model thinks (`between`).
 */
async function step(engine: Checkpoints, cwd: string, tools: string, between?: () => void | Promise<void>): Promise<string> {
  const before = await engine.snapshot('step', { reuse: true })
  sh(cwd, tools)
  await engine.stepChanges(before.commit)
  await between?.()
  return before.commit
}

describe('the change feed lets a step skip its snapshot walk, and never at the cost of a change', () => {
  it('a quiet gap reuses the last listing, and that snapshot is the very tree a full walk gives', async () => {
    const { root, cwd } = box()
    const engine = await watched(root, cwd)
    await step(engine, cwd, 'echo more >> a.txt')
    const reusedBefore = engine.reused
    const snapshot = await engine.snapshot('step', { reuse: true })
    expect(engine.reused).toBe(reusedBefore + 1)
    expect(treeOf(engine, snapshot.commit)).toBe(await fresh(root, cwd, 'quiet'))
    engine.close()
  })

  // Each writes between one step's listing and the next step's snapshot, the way something other than the agent would.
  const BETWEEN: readonly [string, (cwd: string) => void | Promise<void>][] = [
    ['a background job appends to a file', (cwd) => sh(cwd, 'echo job >> src/main.ts')],
    ['an editor saves through a temporary file and a rename', (cwd) => {
      writeFileSync(join(cwd, '.a.txt.swp'), 'edited\n')
      renameSync(join(cwd, '.a.txt.swp'), join(cwd, 'a.txt'))
    }],
    ['a file is renamed', (cwd) => renameSync(join(cwd, 'src', 'main.ts'), join(cwd, 'src', 'moved.ts'))],
    ['a directory is deleted', (cwd) => rmSync(join(cwd, 'src', 'deep'), { recursive: true })],
    ['a new directory gets files at once', (cwd) => sh(cwd, 'mkdir -p fresh/dir/deeper && echo x > fresh/dir/deeper/f.txt')],
    ['a directory is moved and then written inside', (cwd) => sh(cwd, 'mkdir -p m1/in && echo 1 > m1/in/f && mv m1 m2 && echo 2 >> m2/in/f')],
    ['a chmod alone', (cwd) => sh(cwd, 'chmod +x a.txt')],
    ['a process that exits just before the snapshot', (cwd) =>
      new Promise<void>((resolve) => spawn('bash', ['-c', 'echo late > late.txt'], { cwd }).on('close', () => resolve()))],
  ]

  it.each(BETWEEN)('%s: the next snapshot sees it (it equals a fresh full one)', async (label, change) => {
    const { root, cwd } = box()
    const engine = await watched(root, cwd)
    await step(engine, cwd, 'echo tool >> a.txt', () => change(cwd))
    const snapshot = await engine.snapshot('step', { reuse: true })
    expect(treeOf(engine, snapshot.commit)).toBe(await fresh(root, cwd, 'between'))
    // A change made in a directory the feed watches only since the change itself is seen too.
    sh(cwd, 'mkdir -p later && echo y > later/y.txt')
    const later = await engine.snapshot('step', { reuse: true })
    expect(treeOf(engine, later.commit)).toBe(await fresh(root, cwd, 'later'))
    engine.close()
  })

  it('a write made synchronously right before the snapshot (its event not yet read) is in the snapshot', async () => {
    const { root, cwd } = box()
    const engine = await watched(root, cwd)
    for (let i = 0; i < 5; i++) {
      await step(engine, cwd, `echo ${i} >> a.txt`)
      writeFileSync(join(cwd, 'src', 'main.ts'), `export const x = ${i + 10}\n`)
      const snapshot = await engine.snapshot('step', { reuse: true })
      expect(treeOf(engine, snapshot.commit)).toBe(await fresh(root, cwd, `sync-${i}`))
    }
    engine.close()
  })

  it('many events at once (a generated tree of 3,000 files) still end in a full walk and the right tree', async () => {
    const { root, cwd } = box()
    const engine = await watched(root, cwd)
    await step(engine, cwd, 'true', () => sh(cwd, 'mkdir -p gen && for d in $(seq 30); do mkdir -p gen/$d; for f in $(seq 100); do echo $f > gen/$d/$f; done; done'))
    const snapshot = await engine.snapshot('step', { reuse: true })
    expect(treeOf(engine, snapshot.commit)).toBe(await fresh(root, cwd, 'many'))
    engine.close()
  })

  it('with no feed (the watch fails: the inotify limit), every snapshot walks and is right', async () => {
    const { root, cwd } = box()
    const refuse = (): FSWatcher => {
      throw Object.assign(new Error('ENOSPC: System limit for number of file watchers reached'), { code: 'ENOSPC' })
    }
    const engine = await watched(root, cwd, { changeFeed: { watcher: refuse } })
    await step(engine, cwd, 'echo tool >> a.txt', () => sh(cwd, 'echo job > job.txt'))
    const snapshot = await engine.snapshot('step', { reuse: true })
    expect(treeOf(engine, snapshot.commit)).toBe(await fresh(root, cwd, 'nofeed'))
    await engine.snapshot('step', { reuse: true })
    expect(engine.reused).toBe(0)
    engine.close()
  })

  it('past the directory cap the feed gives up and snapshots walk', async () => {
    const { root, cwd } = box()
    const engine = await watched(root, cwd, { changeFeed: { maxDirectories: 2 } })
    await step(engine, cwd, 'echo tool >> a.txt')
    await engine.snapshot('step', { reuse: true })
    expect(engine.reused).toBe(0)
    engine.close()
  })

  it('what a step lists from its one status equals what a full compare lists, for every kind of change', async () => {
    const { root, cwd } = box()
    const engine = await watched(root, cwd)
    const tools = [
      'echo more >> a.txt && echo new > src/new.ts',
      'rm -r src/deep && echo gone > gone.txt',
      'chmod +x src/main.ts',
      'ln -s a.txt link && rm a.txt && echo back > a.txt',
      'rm gone.txt && mkdir gone.txt && echo inside > gone.txt/in.txt',
      'mkdir -p build && echo out > build/o.js && head -c 4096 /dev/zero > big.bin && mkdir nested && git -C nested init -q && echo n > nested/n.txt',
      "printf 'odd' > $'caf\\xe9.txt' && echo q > 'quote\"d'",
    ]
    for (const command of tools) {
      const before = await engine.snapshot('step', { reuse: true })
      sh(cwd, command)
      const listed = await engine.stepChanges(before.commit)
      const compared = (await engine.compare(before.commit)).map(({ path, kind, now }) => ({ path, kind, now }))
      expect({ command, listed }).toEqual({ command, listed: compared })
    }
    // The commits and refs written without git are objects and refs git reads as its own.
    const commits = shadow(engine.gitDir, 'rev-list', 'refs/rein/sessions/steps').split('\n')
    // One per step but the one that changed only ignored and left-out paths.
    expect(commits.length).toBe(tools.length - 1)
    expect(shadow(engine.gitDir, 'rev-parse', 'HEAD')).toBe(commits[0])
    expect(() => shadow(engine.gitDir, 'fsck', '--strict', '--no-dangling')).not.toThrow()
    engine.close()
  })
})

describe('watchTree', () => {
  it('answers "quiet" only when nothing was written, and names what was', async () => {
    const { cwd } = box()
    const feed = watchTree(cwd)
    const mark = await feed.mark()
    expect(mark).toBeDefined()
    expect(await feed.quietSince(mark)).toBe(true)
    writeFileSync(join(cwd, 'src', 'deep', 'b.txt'), 'changed\n')
    expect(await feed.quietSince(mark)).toBe(false)
    expect([...((await feed.changedSince(mark)) ?? [])]).toEqual(['src/deep/b.txt'])
    feed.close()
    expect(await feed.quietSince(await feed.mark())).toBe(false)
  })

  it('a mark from before a directory is removed and made again still sees writes inside the new one', async () => {
    const { cwd } = box()
    const feed = watchTree(cwd)
    await feed.mark()
    rmSync(join(cwd, 'src'), { recursive: true })
    mkdirSync(join(cwd, 'src', 'deep'), { recursive: true })
    const mark = await feed.mark()
    writeFileSync(join(cwd, 'src', 'deep', 'c.txt'), 'new\n')
    expect(await feed.changedSince(mark)).toEqual(new Set(['src/deep/c.txt']))
    feed.close()
  })

  it('a feed that may not start (not a local filesystem) never vouches', async () => {
    const { cwd } = box()
    const feed = watchTree(cwd, { allowed: Promise.resolve(false) })
    expect(await feed.mark()).toBeUndefined()
    expect(await feed.quietSince(undefined)).toBe(false)
    expect(feed.broken).toMatch(/no change feed/)
  })
})
