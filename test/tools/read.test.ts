import { createWriteStream, writeFileSync } from 'node:fs'
import path from 'node:path'
import { once } from 'node:events'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { readTool } from '../../src/tools/read.js'
import { makeWorkspace, textOf, type Workspace } from './tool-context.js'

let ws: Workspace
beforeEach(() => {
  ws = makeWorkspace()
})
afterEach(async () => {
  await ws.dispose()
})

describe('read', () => {
  it('returns numbered lines in cat -n style and records the file version', async () => {
    writeFileSync(path.join(ws.cwd, 'a.txt'), 'alpha\nbeta\r\ngamma')
    const out = await ws.run(readTool, { file_path: 'a.txt' })
    expect(out.isError).toBeFalsy()
    expect(textOf(out)).toBe('     1\talpha\n     2\tbeta\n     3\tgamma')
    const version = ws.state.files.get(path.join(ws.cwd, 'a.txt'))
    expect(version?.size).toBe(17)
    expect(version?.sha256).toMatch(/^[0-9a-f]{64}$/)
  })

  it('reads from a 1-based offset and says how to continue when limited', async () => {
    writeFileSync(path.join(ws.cwd, 'n.txt'), Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n'))
    const out = textOf(await ws.run(readTool, { file_path: 'n.txt', offset: 4, limit: 3 }))
    expect(out.split('\n').slice(0, 3)).toEqual(['     4\tline 4', '     5\tline 5', '     6\tline 6'])
    expect(out).toContain('Continue with offset=7')
    expect(out).toContain('of 10')
  })

  it('cuts lines longer than 2000 characters', async () => {
    writeFileSync(path.join(ws.cwd, 'long.txt'), `${'x'.repeat(5000)}\nshort\n`)
    const out = textOf(await ws.run(readTool, { file_path: 'long.txt' }))
    const first = out.split('\n')[0]
    expect(first).toContain('[line cut]')
    expect(first.length).toBeLessThan(2100)
    expect(out).toContain('     2\tshort')
  })

  it('stops at the byte cap per call with a footer naming the next offset', async () => {
    const line = 'y'.repeat(1000)
    writeFileSync(path.join(ws.cwd, 'wide.txt'), Array.from({ length: 1000 }, () => line).join('\n'))
    const out = textOf(await ws.run(readTool, { file_path: 'wide.txt' }))
    expect(Buffer.byteLength(out)).toBeLessThan(260 * 1024)
    expect(out).toMatch(/256 KiB limit per read\)\. Continue with offset=\d+/)
  })

  it('refuses a binary file with a clear message', async () => {
    writeFileSync(path.join(ws.cwd, 'bin.dat'), Buffer.from([1, 2, 0, 3, 4]))
    const out = await ws.run(readTool, { file_path: 'bin.dat' })
    expect(out.isError).toBe(true)
    expect(textOf(out)).toMatch(/binary file/)
  })

  it('returns an image as an image block and says so', async () => {
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(16)])
    writeFileSync(path.join(ws.cwd, 'pic.png'), png)
    const out = await ws.run(readTool, { file_path: 'pic.png' })
    expect(out.content[0]).toMatchObject({ type: 'text' })
    expect(textOf(out)).toContain('image/png')
    expect(out.content[1]).toEqual({ type: 'image', mimeType: 'image/png', data: png.toString('base64') })
  })

  it('reports a missing file, a directory and an offset past the end as errors the model can act on', async () => {
    writeFileSync(path.join(ws.cwd, 'two.txt'), 'a\nb\n')
    expect(textOf(await ws.run(readTool, { file_path: 'nope.txt' }))).toMatch(/does not exist/)
    expect(textOf(await ws.run(readTool, { file_path: '.' }))).toMatch(/is a directory; use ls/)
    const past = await ws.run(readTool, { file_path: 'two.txt', offset: 5 })
    expect(past.isError).toBe(true)
    expect(textOf(past)).toMatch(/past the end.*2 lines/)
  })

  it('says an empty file is empty', async () => {
    writeFileSync(path.join(ws.cwd, 'empty.txt'), '')
    expect(textOf(await ws.run(readTool, { file_path: 'empty.txt' }))).toMatch(/is empty/)
  })

  it('reads the end of a 200 MB file without loading it whole', async () => {
    const file = path.join(ws.cwd, 'big.log')
    const stream = createWriteStream(file)
    const block = `${'0123456789'.repeat(9)}abcdefghi\n`.repeat(10_000) // 1,000,000 bytes, 10,000 lines
    for (let i = 0; i < 200; i++) if (!stream.write(block)) await once(stream, 'drain')
    stream.end()
    await once(stream, 'finish')
    const before = process.memoryUsage().rss
    const out = textOf(await ws.run(readTool, { file_path: file, offset: 1_999_999, limit: 5 }))
    const grown = process.memoryUsage().rss - before
    expect(out).toContain('1999999\t0123456789')
    expect(out).toContain('2000000\t0123456789')
    expect(ws.state.files.get(file)?.size).toBe(200_000_000)
    expect(grown).toBeLessThan(100 * 1024 * 1024)
  })
})
