import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { findRipgrep } from '../../src/tools/grep-ripgrep.js'
import { grepTool } from '../../src/tools/grep.js'
import { makeWorkspace, textOf, type Workspace } from './tool-context.js'

const hasRipgrep = findRipgrep() !== undefined
/** Set on a machine without `rg` to leave the ripgrep half out knowingly; CI installs rg (.ci/run) and never sets it. */
const withoutRipgrep = process.env.REIN_TEST_WITHOUT_RIPGREP === '1'
const engines = [
  { name: 'the built-in search', env: 'builtin', skip: false },
  { name: 'ripgrep', env: undefined, skip: !hasRipgrep },
]

if (!hasRipgrep && !withoutRipgrep) {
  describe('grep with ripgrep', () => {
    it('needs ripgrep (rg) on PATH to test the engine most users run', () => {
      throw new Error(
        'ripgrep (`rg`) is not on PATH, so the ripgrep engine is untested: install it (apt-get install ripgrep, brew install ripgrep), or set REIN_TEST_WITHOUT_RIPGREP=1 to leave these tests out knowingly.',
      )
    })
  })
}

let ws: Workspace
beforeEach(() => {
  ws = makeWorkspace()
  const put = (name: string, text: string) => {
    mkdirSync(path.dirname(path.join(ws.cwd, name)), { recursive: true })
    writeFileSync(path.join(ws.cwd, name), text)
  }
  put('.gitignore', 'dist/\n*.log\n')
  put('src/a.ts', 'const needle = 1\nconst other = 2\nexport { needle }\n')
  put('src/b.js', 'NEEDLE in caps\n')
  put('src/sub/c.ts', 'one\ntwo\nneedle here\nthree\nfour\n')
  put('dist/out.ts', 'needle in build output\n')
  put('debug.log', 'needle in a log\n')
  put('.hidden/h.ts', 'needle hidden\n')
  put('image.bin', 'needle\u0000binary')
})
afterEach(async () => {
  await ws.dispose()
})
afterAll(() => {
  delete process.env.REIN_GREP
})

for (const engine of engines) {
  describe.skipIf(engine.skip)(`grep with ${engine.name}`, () => {
    beforeEach(() => {
      if (engine.env) process.env.REIN_GREP = engine.env
      else delete process.env.REIN_GREP
    })

    it('reports which engine ran', async () => {
      const out = await ws.run(grepTool, { pattern: 'needle' })
      expect(out.meta).toMatchObject({ engine: engine.env ? 'builtin' : 'ripgrep' })
    })

    it('lists matching files in path order, skipping .gitignored, .git and binary files', async () => {
      const out = textOf(await ws.run(grepTool, { pattern: 'needle' }))
      expect(out.split('\n')).toEqual(['.hidden/h.ts', 'src/a.ts', 'src/sub/c.ts'])
    })

    it('shows matching lines with numbers in content mode', async () => {
      const out = textOf(await ws.run(grepTool, { pattern: 'needle', path: 'src', output_mode: 'content' }))
      expect(out.split('\n')).toEqual(['src/a.ts:1:const needle = 1', 'src/a.ts:3:export { needle }', 'src/sub/c.ts:3:needle here'])
    })

    it('shows context lines around a match', async () => {
      const out = textOf(await ws.run(grepTool, { pattern: 'needle', path: 'src/sub', output_mode: 'content', '-C': 1 }))
      expect(out.split('\n')).toEqual(['src/sub/c.ts-2-two', 'src/sub/c.ts:3:needle here', 'src/sub/c.ts-4-three'])
    })

    it('ignores case with -i and filters files with glob', async () => {
      const out = textOf(await ws.run(grepTool, { pattern: 'needle', '-i': true, glob: '*.js' }))
      expect(out).toBe('src/b.js')
    })

    it('counts matches per file', async () => {
      const out = textOf(await ws.run(grepTool, { pattern: 'needle', path: 'src', output_mode: 'count' }))
      expect(out.split('\n')).toEqual(['src/a.ts:2', 'src/sub/c.ts:1'])
    })

    it('searches a single file', async () => {
      const out = textOf(await ws.run(grepTool, { pattern: 'two', path: 'src/sub/c.ts', output_mode: 'content' }))
      expect(out).toBe('src/sub/c.ts:2:two')
    })

    it('says so when nothing matches', async () => {
      expect(textOf(await ws.run(grepTool, { pattern: 'zebra' }))).toBe('No matches.')
    })

    it('cuts results at the match cap with a note', async () => {
      writeFileSync(path.join(ws.cwd, 'many.txt'), 'hit\n'.repeat(400))
      const out = textOf(await ws.run(grepTool, { pattern: 'hit', path: 'many.txt', output_mode: 'content' }))
      expect(out.split('\n').filter((l) => l.startsWith('many.txt:')).length).toBe(250)
      expect(out).toMatch(/results cut at 250 lines/)
    })

    it('gives many files in path order, components compared one by one, with context groups between files', async () => {
      const names = ['a-b/x.txt', 'a/x.txt', 'a/b/x.txt', 'B.txt', 'z.txt', ...Array.from({ length: 120 }, (_, i) => `n/f${String(i).padStart(3, '0')}.txt`)]
      for (const name of names) {
        mkdirSync(path.dirname(path.join(ws.cwd, 'tree', name)), { recursive: true })
        writeFileSync(path.join(ws.cwd, 'tree', name), 'before\nmark\nafter\n')
      }
      const files = textOf(await ws.run(grepTool, { pattern: 'mark', path: 'tree' })).split('\n')
      expect(files.slice(0, 5)).toEqual(['tree/B.txt', 'tree/a/b/x.txt', 'tree/a/x.txt', 'tree/a-b/x.txt', 'tree/n/f000.txt'])
      expect(files.slice(4, -1)).toEqual([...files.slice(4, -1)].sort())
      expect(files.at(-1)).toBe('tree/z.txt')
      const content = textOf(await ws.run(grepTool, { pattern: 'mark', path: 'tree/a', output_mode: 'content', '-A': 1 })).split('\n')
      expect(content).toEqual(['tree/a/b/x.txt:2:mark', 'tree/a/b/x.txt-3-after', '--', 'tree/a/x.txt:2:mark', 'tree/a/x.txt-3-after'])
    })

    it('anchors ^ and $ at each line, also in a file whose first line does not match', async () => {
      writeFileSync(path.join(ws.cwd, 'anchors.txt'), 'first\nfoo\nfoobar\n')
      const out = textOf(await ws.run(grepTool, { pattern: '^foo$', path: 'anchors.txt', output_mode: 'content' }))
      expect(out.split('\n')).toEqual(['anchors.txt:2:foo'])
      if (!engine.env) return // ripgrep's regex syntax has no lookarounds; the built-in search's JavaScript one does.
      const ahead = textOf(await ws.run(grepTool, { pattern: 'foo(?!bar)', path: 'anchors.txt', output_mode: 'content' }))
      expect(ahead.split('\n')).toEqual(['anchors.txt:2:foo'])
    })

    it('clamps context lines to 50 each side instead of refusing a larger count', async () => {
      writeFileSync(path.join(ws.cwd, 'long.txt'), `${'x\n'.repeat(80)}mark\n${'y\n'.repeat(80)}`)
      const out = textOf(await ws.run(grepTool, { pattern: 'mark', path: 'long.txt', output_mode: 'content', '-C': 500 })).split('\n')
      expect(out).toHaveLength(101)
    })

    it('reports an invalid pattern as an error', async () => {
      const out = await ws.run(grepTool, { pattern: '(unclosed' })
      expect(out.isError).toBe(true)
      expect(textOf(out)).toMatch(/^Error: /)
    })
  })
}
