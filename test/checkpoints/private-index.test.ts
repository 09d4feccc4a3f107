import { spawn } from 'node:child_process'
import { closeSync, existsSync, openSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { identityOf } from '../../src/checkpoints/index-identity.js'
import { dropOrphanBlobs } from '../../src/checkpoints/orphans.js'
import { closePrivateIndex, installPrivateIndex, openPrivateIndex, STALE_PRIVATE_INDEX_MS, sweepPrivateIndexes } from '../../src/checkpoints/private-index.js'
import { shadowGit } from '../../src/checkpoints/shadow-git.js'
import { engineFor, shadow, workspace } from './shadow-support.js'

const roots: string[] = []
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true })
})

/** A workspace with one snapshot taken, so its shadow repository has an index. */
async function snapshotted(): Promise<ReturnType<typeof workspace>> {
  const box = workspace()
  roots.push(box.root)
  const engine = engineFor(box, 'private')
  await engine.snapshot()
  await engine.close()
  return box
}

/** The id of a process that has exited (a reaped child's). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''])
  await new Promise((resolve) => child.on('close', resolve))
  return child.pid ?? 0
}

function privateFiles(gitDir: string): string[] {
  return readdirSync(gitDir)
    .filter((name) => name.startsWith('index.rein-'))
    .sort()
}

describe('private indexes of deferred index writes', () => {
  it('written through GIT_INDEX_FILE and installed, the private index becomes the shadow index, which git never locked meanwhile', async () => {
    const { cwd, gitDir } = await snapshotted()
    writeFileSync(join(cwd, 'b.txt'), 'beta\n')
    const own = openPrivateIndex(gitDir, identityOf(join(gitDir, 'index')))
    expect(own).toBeDefined()
    if (!own) return
    const git = shadowGit({ gitDir, workTree: cwd, indexFile: own.file })
    // A lock on the shadow index changes nothing for git on the private one.
    closeSync(openSync(join(gitDir, 'index.lock'), 'wx'))
    await git(['update-index', '--add', '--', 'b.txt'])
    const tree = (await git(['write-tree'])).toString().trim()
    rmSync(join(gitDir, 'index.lock'))
    expect(installPrivateIndex(own)).toBe(identityOf(join(gitDir, 'index')))
    closePrivateIndex(own)
    expect(shadow(gitDir, 'write-tree')).toBe(tree)
    expect(shadow(gitDir, 'ls-files')).toBe('a.txt\nb.txt')
    expect(privateFiles(gitDir)).toEqual([])
  })

  it('is dropped, never installed, when another process replaced the shadow index after it was made', async () => {
    const { cwd, gitDir } = await snapshotted()
    writeFileSync(join(cwd, 'b.txt'), 'beta\n')
    const own = openPrivateIndex(gitDir, identityOf(join(gitDir, 'index')))
    if (!own) throw new Error('no private index')
    await shadowGit({ gitDir, workTree: cwd, indexFile: own.file })(['update-index', '--add', '--', 'b.txt'])
    writeFileSync(join(cwd, 'c.txt'), 'gamma\n')
    await shadowGit({ gitDir, workTree: cwd })(['update-index', '--add', '--', 'c.txt'])
    expect(installPrivateIndex(own)).toBeUndefined()
    closePrivateIndex(own)
    expect(shadow(gitDir, 'ls-files')).toBe('a.txt\nc.txt')
    expect(privateFiles(gitDir)).toEqual([])
  })

  it('is not made while the shadow index is locked, or when it is no longer the index the writes were worked out from', async () => {
    const { gitDir } = await snapshotted()
    const index = join(gitDir, 'index')
    closeSync(openSync(join(gitDir, 'index.lock'), 'wx'))
    expect(openPrivateIndex(gitDir, identityOf(index))).toBeUndefined()
    rmSync(join(gitDir, 'index.lock'))
    expect(openPrivateIndex(gitDir, 'another index')).toBeUndefined()
    expect(privateFiles(gitDir)).toEqual([])
    expect(existsSync(join(gitDir, 'index.lock'))).toBe(false)
  })

  it('left by a process that is gone, or older than the limit, is swept with its lock; a live young one stays', async () => {
    const { gitDir } = await snapshotted()
    const dead = await deadPid()
    for (const name of [`index.rein-${dead}-1`, `index.rein-${dead}-1.lock`, `index.rein-${process.pid}-900`, `index.rein-${process.pid}-901`]) writeFileSync(join(gitDir, name), '')
    const old = (Date.now() - STALE_PRIVATE_INDEX_MS - 60_000) / 1000
    utimesSync(join(gitDir, `index.rein-${process.pid}-901`), old, old)
    sweepPrivateIndexes(gitDir)
    expect(privateFiles(gitDir)).toEqual([`index.rein-${process.pid}-900`])
  })

  it("keeps a failed add's new blobs while a live process has a private index, and removes them once none has", async () => {
    const { cwd, gitDir } = await snapshotted()
    const since = Date.now()
    writeFileSync(join(cwd, 'orphan.txt'), 'written by an add that then failed\n')
    const blob = shadow(gitDir, 'hash-object', '-w', join(cwd, 'orphan.txt'))
    const git = shadowGit({ gitDir, workTree: cwd })
    const live = join(gitDir, `index.rein-${process.pid}-902`)
    writeFileSync(live, '')
    expect(await dropOrphanBlobs(git, gitDir, since)).toBe(0)
    expect(shadow(gitDir, 'cat-file', '-t', blob)).toBe('blob')
    // The failed writer's own private index does not count.
    expect(await dropOrphanBlobs(git, gitDir, since, live)).toBe(1)
    expect(() => shadow(gitDir, 'cat-file', '-t', blob)).toThrow()
    rmSync(live)
  })
})
