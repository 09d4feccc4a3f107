import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { builtinGrep } from '../../src/tools/grep-builtin.js'
import type { GrepQuery } from '../../src/tools/grep-query.js'
import { findRipgrep, ripgrep } from '../../src/tools/grep-ripgrep.js'

// A tree past the point where the built-in search hands its reads to a worker thread (2,000 files), with every kind
// of file it must leave out or keep placed after that point: the results must be those ripgrep gives.

let root: string
const rg = findRipgrep()

beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'rein-grep-large-')))
  const put = (name: string, text: string | Buffer) => {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true })
    writeFileSync(path.join(root, name), text)
  }
  for (let d = 0; d < 25; d++) {
    for (let f = 0; f < 100; f++) put(`d${String(d).padStart(2, '0')}/f${String(f).padStart(3, '0')}.txt`, `line one\nline ${d}/${f}\n`)
  }
  put('d01/f050.txt', 'early needle\n')
  put('d24/.gitignore', 'ignored.txt\n')
  put('d24/ignored.txt', 'needle in an ignored file\n')
  put('d24/binary.dat', Buffer.concat([Buffer.from('needle'), Buffer.from([0, 1, 2])]))
  put('d24/big.txt', `${'filler line\n'.repeat(20_000)}needle at the end of a big file\n`)
  put('d24/denied.txt', 'needle in a denied file\n')
  put('d24/last.txt', 'one\nneedle = 1\ntwo\n')
  put('d24/unreadable', 'needle\n')
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

const query = (over: Partial<GrepQuery>): GrepQuery => ({
  pattern: 'needle',
  cwd: root,
  target: root,
  mode: 'files_with_matches',
  ignoreCase: false,
  lineNumbers: true,
  before: 0,
  after: 0,
  maxLines: 250,
  signal: new AbortController().signal,
  env: process.env,
  refuses: (file) => (file.endsWith('denied.txt') ? 'denied' : undefined),
  ...over,
})

describe('the built-in grep on a tree of 2,500 files', () => {
  it('lists matching files in path order, leaving out ignored, binary and denied files, and counts the denied', async () => {
    const result = await builtinGrep(query({}))
    expect(result).toEqual({ lines: ['d01/f050.txt', 'd24/big.txt', 'd24/last.txt', 'd24/unreadable'], cut: false, leftOut: 1 })
  })

  it('gives matched lines with context past the first 2,000 files', async () => {
    const result = await builtinGrep(query({ pattern: 'needle = \\d', mode: 'content', before: 1, after: 1 }))
    expect(result).toEqual({ lines: ['d24/last.txt-1-one', 'd24/last.txt:2:needle = 1', 'd24/last.txt-3-two'], cut: false, leftOut: 1 })
  })

  it('finds a pattern with no plain text in it, case ignored', async () => {
    const result = await builtinGrep(query({ pattern: '^LINE 2[34]/9\\d$', ignoreCase: true, mode: 'count' }))
    if ('error' in result) throw new Error(result.error)
    expect(result.lines).toHaveLength(20)
    expect(result.lines[0]).toBe('d23/f090.txt:1')
  })

  // The count of paths left out differs by design: the built-in search never opens a denied file and counts every one
  // it passes, ripgrep's output names only the denied files that matched.
  it.skipIf(!rg)('gives the lines ripgrep gives, in every output mode, cut or not', async () => {
    const shown = (result: Awaited<ReturnType<typeof builtinGrep>>) => ('error' in result ? result : { lines: result.lines, cut: result.cut })
    for (const mode of ['files_with_matches', 'count', 'content'] as const) {
      for (const pattern of ['needle', 'line 1\\d/5', 'one$']) {
        const q = query({ pattern, mode, after: mode === 'content' ? 1 : 0 })
        expect(shown(await builtinGrep(q)), `${pattern} (${mode})`).toEqual(shown(await ripgrep(rg ?? 'rg', q)))
      }
    }
  })
})
