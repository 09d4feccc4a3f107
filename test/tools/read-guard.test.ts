import { existsSync, linkSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createPermissionPolicy } from '../../src/permissions/policy.js'
import { writeFileAtomic } from '../../src/fs/atomic-write.js'
import { globTool } from '../../src/tools/glob.js'
import { findRipgrep } from '../../src/tools/grep-ripgrep.js'
import { grepTool } from '../../src/tools/grep.js'
import { lsTool } from '../../src/tools/ls.js'
import { readTool } from '../../src/tools/read.js'
import { makeWorkspace, textOf, type Workspace } from './tool-context.js'

// The read guard inside the tools: the policy judges a call's path argument, the tools judge each file they open or
// list. Here the tools run without the policy's preTool, as a grep of a parent directory would after being allowed.

let ws: Workspace
let home: string
let reinHome: string

beforeEach(() => {
  ws = makeWorkspace()
  home = path.join(ws.outside, 'home')
  reinHome = path.join(home, '.rein')
  mkdirSync(path.join(home, '.ssh'), { recursive: true })
  mkdirSync(path.join(reinHome, 'sessions'), { recursive: true })
  writeFileSync(path.join(home, '.ssh/id_rsa'), 'SECRET-SENTINEL key\n')
  writeFileSync(path.join(home, 'notes.txt'), 'SECRET-SENTINEL is not here, only its name\n')
  writeFileSync(path.join(reinHome, 'credentials'), 'SECRET-SENTINEL credentials\n')
  writeFileSync(path.join(reinHome, 'sessions/s.jsonl'), '{"SECRET-SENTINEL":1}\n')
  writeFileSync(path.join(ws.cwd, 'plain.txt'), 'SECRET-SENTINEL in the workspace is fine\n')
  linkSync(path.join(home, '.ssh/id_rsa'), path.join(ws.cwd, 'linked.txt'))
  const policy = createPermissionPolicy({
    cwd: ws.cwd,
    settings: { permissions: { deny: ['Read(~/.ssh/**)'] } },
    getMode: () => 'default',
    home,
    reinHome,
  })
  policy.guardTools(ws.state)
})
afterEach(async () => {
  await ws.dispose()
})
afterAll(() => {
  delete process.env.REIN_GREP
})

const engines = [
  { name: 'the built-in search', env: 'builtin' },
  { name: 'ripgrep', env: undefined },
]

it('runs these tests with ripgrep installed', () => {
  expect(findRipgrep()).toBeDefined()
})

for (const engine of engines) {
  describe(`grep with ${engine.name}`, () => {
    beforeEach(() => {
      if (engine.env) process.env.REIN_GREP = engine.env
      else delete process.env.REIN_GREP
    })

    it('leaves files under a Read deny rule and Rein home out of a search of home, and says how many', async () => {
      for (const mode of ['content', 'files_with_matches', 'count'] as const) {
        const out = textOf(await ws.run(grepTool, { pattern: 'SECRET', path: home, output_mode: mode }))
        expect(out, mode).not.toMatch(/id_rsa|credentials|s\.jsonl|key$/m)
        expect(out, mode).toMatch(/notes\.txt/)
        expect(out, mode).toMatch(/paths? (was|were) left out: a Read deny rule or Rein's own home covers/)
      }
    })

    it('leaves a hard link to a denied file out of a search of the workspace', async () => {
      const out = textOf(await ws.run(grepTool, { pattern: 'SECRET', output_mode: 'content', '-C': 1 }))
      expect(out).toMatch(/^plain\.txt:1:SECRET-SENTINEL in the workspace is fine$/m)
      expect(out).not.toMatch(/linked|key/)
      expect(out).toMatch(/1 path was left out/)
    })

    it('keeps line numbers and context separators right for names holding colons', async () => {
      writeFileSync(path.join(ws.cwd, 'a:b.txt'), 'x\nneedle\ny\n')
      const out = textOf(await ws.run(grepTool, { pattern: 'needle', output_mode: 'content', '-C': 1, path: 'a:b.txt' }))
      expect(out.split('\n')).toEqual(['a:b.txt-1-x', 'a:b.txt:2:needle', 'a:b.txt-3-y'])
      const bare = textOf(await ws.run(grepTool, { pattern: 'needle', output_mode: 'content', '-n': false, path: 'a:b.txt' }))
      expect(bare).toBe('a:b.txt:needle')
    })
  })
}

describe('glob, ls and read', () => {
  it('glob leaves denied files and Rein home out of its results, and says how many', async () => {
    const out = textOf(await ws.run(globTool, { pattern: '**/*', path: home }))
    expect(out).toMatch(/notes\.txt/)
    expect(out).not.toMatch(/id_rsa|credentials|s\.jsonl/)
    expect(out).toMatch(/3 paths were left out/)
  })

  it('glob leaves out a hard link to a denied file', async () => {
    const out = textOf(await ws.run(globTool, { pattern: '*.txt' }))
    expect(out.split('\n')).toEqual(['plain.txt', '[1 path was left out: a Read deny rule or Rein\'s own home covers it]'])
  })

  it('ls leaves denied entries out of a listing', async () => {
    const out = textOf(await ws.run(lsTool, { path: home }))
    expect(out.split('\n')).toEqual(['notes.txt', "[2 paths were left out: a Read deny rule or Rein's own home covers them]"])
  })

  it('read refuses a hard link to a denied file and Rein credentials, naming why', async () => {
    const linked = await ws.run(readTool, { file_path: 'linked.txt' })
    expect(linked.isError).toBe(true)
    expect(textOf(linked)).toMatch(/linked\.txt may not be read: it is a hard link to a file the permission rule Read\(~\/\.ssh\/\*\*\) covers/)
    const credentials = await ws.run(readTool, { file_path: path.join(reinHome, 'credentials') })
    expect(textOf(credentials)).toMatch(/may not be read: it is in Rein's own home/)
    expect(textOf(credentials)).not.toMatch(/SECRET/)
  })

  it('read refuses a symlink inside the workspace that points into a denied tree', async () => {
    symlinkSync(path.join(home, '.ssh'), path.join(ws.cwd, 'keys'))
    expect(textOf(await ws.run(readTool, { file_path: 'keys/id_rsa' }))).toMatch(/may not be read: the permission rule Read\(~\/\.ssh\/\*\*\) covers it/)
  })
})

describe('writes land where they were checked', () => {
  it('refuses a write whose directory now resolves elsewhere, and leaves no temp file behind', async () => {
    const real = path.join(ws.cwd, 'real')
    mkdirSync(real)
    symlinkSync(ws.outside, path.join(ws.cwd, 'swapped'))
    // The caller resolved `swapped` as a directory of its own; by the rename it is a link to somewhere else.
    await expect(writeFileAtomic(path.join(ws.cwd, 'swapped', 'x.txt'), 'data', { checkedDirectory: true })).rejects.toThrow(/now resolves to .*outside.*nothing was written/)
    expect(existsSync(path.join(ws.outside, 'x.txt'))).toBe(false)
    expect(readdirSync(ws.outside).filter((n) => n.includes('.rein-'))).toEqual([])
  })

  it('writes as before when the directory is where it was checked', async () => {
    await writeFileAtomic(path.join(ws.cwd, 'real.txt'), 'data', { checkedDirectory: true })
    expect(existsSync(path.join(ws.cwd, 'real.txt'))).toBe(true)
  })
})
