import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  directoriesBelow,
  fitBudget,
  instructionFolder,
  projectRoot,
  readInstructionFile,
  workspaceInstructionPaths,
} from '../../src/context/instruction-files.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rein-ctx-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('instruction file discovery', () => {
  it('finds the project root at the nearest ancestor holding .git', () => {
    mkdirSync(join(dir, 'repo/.git'), { recursive: true })
    mkdirSync(join(dir, 'repo/a/b'), { recursive: true })
    expect(projectRoot(join(dir, 'repo/a/b'))).toBe(join(dir, 'repo'))
  })

  it('accepts a .git file, as a worktree or submodule has', () => {
    mkdirSync(join(dir, 'wt/sub'), { recursive: true })
    writeFileSync(join(dir, 'wt/.git'), 'gitdir: elsewhere\n')
    expect(projectRoot(join(dir, 'wt/sub'))).toBe(join(dir, 'wt'))
  })

  it('uses the working directory as the root when no ancestor holds .git', () => {
    mkdirSync(join(dir, 'plain/x'), { recursive: true })
    expect(projectRoot(join(dir, 'plain/x'))).toBe(join(dir, 'plain/x'))
  })

  it('lists the user-wide file, then every directory from the root down, AGENTS.md and CLAUDE.md before the .local.md variants', () => {
    mkdirSync(join(dir, 'repo/.git'), { recursive: true })
    mkdirSync(join(dir, 'repo/pkg'), { recursive: true })
    const paths = workspaceInstructionPaths({ home: join(dir, 'home'), cwd: join(dir, 'repo/pkg') })
    expect(paths).toEqual([
      join(dir, 'home/AGENTS.md'),
      join(dir, 'repo/AGENTS.md'),
      join(dir, 'repo/CLAUDE.md'),
      join(dir, 'repo/AGENTS.local.md'),
      join(dir, 'repo/CLAUDE.local.md'),
      join(dir, 'repo/pkg/AGENTS.md'),
      join(dir, 'repo/pkg/CLAUDE.md'),
      join(dir, 'repo/pkg/AGENTS.local.md'),
      join(dir, 'repo/pkg/CLAUDE.local.md'),
    ])
  })

  it('does not look above the working directory when there is no repository', () => {
    mkdirSync(join(dir, 'plain/x'), { recursive: true })
    const paths = workspaceInstructionPaths({ home: join(dir, 'home'), cwd: join(dir, 'plain/x') })
    expect(paths.filter((p) => p.includes('plain'))).toEqual([
      join(dir, 'plain/x/AGENTS.md'),
      join(dir, 'plain/x/CLAUDE.md'),
      join(dir, 'plain/x/AGENTS.local.md'),
      join(dir, 'plain/x/CLAUDE.local.md'),
    ])
  })

  it('lists the directories strictly below the working directory, outermost first, and nothing outside it', () => {
    expect(directoriesBelow('/w', '/w/a/b')).toEqual(['/w/a', '/w/a/b'])
    expect(directoriesBelow('/w', '/w')).toEqual([])
    expect(directoriesBelow('/w', '/w/../etc')).toEqual([])
    expect(directoriesBelow('/w', '/work/a')).toEqual([])
    expect(directoriesBelow('/w', '/')).toEqual([])
  })

  it('reads a file with its digest, treats a missing path as no file and skips a directory with the reason', async () => {
    writeFileSync(join(dir, 'AGENTS.md'), 'abc')
    mkdirSync(join(dir, 'CLAUDE.md'))
    const sources = { home: join(dir, 'home'), root: dir, refuses: () => undefined }
    const file = readInstructionFile(join(dir, 'AGENTS.md'), sources)
    expect(file).toEqual({
      path: join(dir, 'AGENTS.md'),
      content: 'abc',
      sha256: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
      bytes: 3,
    })
    expect(readInstructionFile(join(dir, 'CLAUDE.md'), sources)).toEqual({ skipped: { path: join(dir, 'CLAUDE.md'), reason: 'it is a directory, not a file' } })
    expect(readInstructionFile(join(dir, 'missing.md'), sources)).toBeNull()
  })

  it('keeps the user-wide file inside $REIN_HOME and every other file inside the project root', () => {
    const sources = { home: join(dir, 'home'), root: join(dir, 'repo') }
    expect(instructionFolder(join(dir, 'home/AGENTS.md'), sources)).toEqual({ dir: join(dir, 'home'), base: join(dir, 'home') })
    expect(instructionFolder(join(dir, 'repo/pkg/CLAUDE.md'), sources)).toEqual({ dir: join(dir, 'repo'), base: join(dir, 'repo') })
  })
})

describe('the instruction budget', () => {
  const f = (name: string, bytes: number) => ({ name, bytes })

  it('keeps everything that fits', () => {
    const files = [f('a', 10), f('b', 20)]
    expect(fitBudget(files, 30)).toEqual({ kept: files, dropped: [] })
  })

  it('drops the broadest files first', () => {
    const { kept, dropped } = fitBudget([f('user', 10), f('root', 10), f('cwd', 10)], 25)
    expect(kept.map((x) => x.name)).toEqual(['root', 'cwd'])
    expect(dropped.map((x) => x.name)).toEqual(['user'])
  })

  it('drops one oversized file without pushing out smaller broader ones', () => {
    const { kept, dropped } = fitBudget([f('user', 10), f('root', 100), f('cwd', 10)], 25)
    expect(kept.map((x) => x.name)).toEqual(['user', 'cwd'])
    expect(dropped.map((x) => x.name)).toEqual(['root'])
  })
})
