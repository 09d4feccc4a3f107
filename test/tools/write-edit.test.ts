import { chmodSync, readdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync, lstatSync } from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { editTool } from '../../src/tools/edit.js'
import { readTool } from '../../src/tools/read.js'
import { writeTool } from '../../src/tools/write.js'
import { makeWorkspace, textOf, type Workspace } from './tool-context.js'

let ws: Workspace
beforeEach(() => {
  ws = makeWorkspace()
})
afterEach(async () => {
  await ws.dispose()
})

const file = (name: string) => path.join(ws.cwd, name)

describe('write', () => {
  it('creates a new file and its parent directories, with a diff in meta and a short confirmation', async () => {
    const out = await ws.run(writeTool, { file_path: 'src/deep/new.ts', content: 'export const a = 1\n' })
    expect(out.isError).toBeFalsy()
    expect(textOf(out)).toBe('Created src/deep/new.ts (1 line).')
    expect(readFileSync(file('src/deep/new.ts'), 'utf8')).toBe('export const a = 1\n')
    expect((out.meta as { diff: string }).diff).toContain('+export const a = 1')
  })

  it('refuses to replace a file the agent has not read', async () => {
    writeFileSync(file('a.txt'), 'mine\n')
    const out = await ws.run(writeTool, { file_path: 'a.txt', content: 'theirs\n' })
    expect(out.isError).toBe(true)
    expect(textOf(out)).toMatch(/not read it.*read it first/)
    expect(readFileSync(file('a.txt'), 'utf8')).toBe('mine\n')
  })

  it('refuses to replace a file that changed on disk since it was read', async () => {
    writeFileSync(file('a.txt'), 'v1\n')
    await ws.run(readTool, { file_path: 'a.txt' })
    writeFileSync(file('a.txt'), 'v2 by someone else\n')
    const out = await ws.run(writeTool, { file_path: 'a.txt', content: 'model\n' })
    expect(out.isError).toBe(true)
    expect(textOf(out)).toMatch(/changed on disk since you last read it/)
    expect(readFileSync(file('a.txt'), 'utf8')).toBe('v2 by someone else\n')
  })

  it('notices a same-size change with a new mtime by its content hash, and accepts a mere touch', async () => {
    writeFileSync(file('a.txt'), 'aaaa\n')
    await ws.run(readTool, { file_path: 'a.txt' })
    const later = new Date(Date.now() + 5000)
    utimesSync(file('a.txt'), later, later)
    expect((await ws.run(writeTool, { file_path: 'a.txt', content: 'touched ok\n' })).isError).toBeFalsy()

    await ws.run(readTool, { file_path: 'a.txt' })
    writeFileSync(file('a.txt'), 'TOUCHED OK\n')
    const evenLater = new Date(Date.now() + 10_000)
    utimesSync(file('a.txt'), evenLater, evenLater)
    expect(textOf(await ws.run(writeTool, { file_path: 'a.txt', content: 'x\n' }))).toMatch(/changed on disk/)
  })

  it('keeps the file mode and leaves no temp file behind', async () => {
    writeFileSync(file('run.sh'), '#!/bin/sh\necho 1\n')
    chmodSync(file('run.sh'), 0o755)
    await ws.run(readTool, { file_path: 'run.sh' })
    await ws.run(writeTool, { file_path: 'run.sh', content: '#!/bin/sh\necho 2\n' })
    expect(statSync(file('run.sh')).mode & 0o777).toBe(0o755)
    expect(readdirSync(ws.cwd)).toEqual(['run.sh'])
  })

  it('writes through a symlink, keeping the link', async () => {
    writeFileSync(file('target.txt'), 'old\n')
    symlinkSync('target.txt', file('link.txt'))
    await ws.run(readTool, { file_path: 'link.txt' })
    const out = await ws.run(writeTool, { file_path: 'link.txt', content: 'new\n' })
    expect(out.isError).toBeFalsy()
    expect(lstatSync(file('link.txt')).isSymbolicLink()).toBe(true)
    expect(readFileSync(file('target.txt'), 'utf8')).toBe('new\n')
  })

  it('writes 10 MB of content, leaving the diff out of meta', async () => {
    const content = 'z'.repeat(99) + '\n'
    const big = content.repeat(100_000)
    const out = await ws.run(writeTool, { file_path: 'big.txt', content: big })
    expect(out.isError).toBeFalsy()
    expect(statSync(file('big.txt')).size).toBe(10_000_000)
    expect(out.meta).toMatchObject({ diffOmitted: true })
  })

  it('writes NUL bytes exactly, and read then treats the file as binary', async () => {
    await ws.run(writeTool, { file_path: 'nul.bin', content: 'a\u0000b\n' })
    expect(readFileSync(file('nul.bin'))).toEqual(Buffer.from([0x61, 0, 0x62, 0x0a]))
    expect(textOf(await ws.run(readTool, { file_path: 'nul.bin' }))).toMatch(/binary/)
  })

  it('lets the agent write again after its own write without re-reading', async () => {
    await ws.run(writeTool, { file_path: 'a.txt', content: 'one\n' })
    const out = await ws.run(writeTool, { file_path: 'a.txt', content: 'two\n' })
    expect(out.isError).toBeFalsy()
    expect((out.meta as { diff: string }).diff).toContain('-one')
  })
})

describe('edit', () => {
  const seed = async (name: string, content: string) => {
    writeFileSync(file(name), content)
    await ws.run(readTool, { file_path: name })
  }

  it('replaces a unique string and puts a unified diff in meta', async () => {
    await seed('a.ts', 'const a = 1\nconst b = 2\n')
    const out = await ws.run(editTool, { file_path: 'a.ts', old_string: 'b = 2', new_string: 'b = 3' })
    expect(textOf(out)).toBe('Edited a.ts: replaced 1 occurrence.')
    expect(readFileSync(file('a.ts'), 'utf8')).toBe('const a = 1\nconst b = 3\n')
    const meta = out.meta as { diff: string; path: string }
    expect(meta.path).toBe(file('a.ts'))
    expect(meta.diff).toContain('-const b = 2')
    expect(meta.diff).toContain('+const b = 3')
  })

  it('refuses an ambiguous old_string and says how many times it occurs', async () => {
    await seed('a.ts', 'x\nx\nx\n')
    const out = await ws.run(editTool, { file_path: 'a.ts', old_string: 'x', new_string: 'y' })
    expect(out.isError).toBe(true)
    expect(textOf(out)).toMatch(/occurs 3 times.*replace_all/)
    expect(readFileSync(file('a.ts'), 'utf8')).toBe('x\nx\nx\n')
  })

  it('replaces every occurrence with replace_all', async () => {
    await seed('a.ts', 'x\nx\nx\n')
    const out = await ws.run(editTool, { file_path: 'a.ts', old_string: 'x', new_string: '$&y', replace_all: true })
    expect(textOf(out)).toMatch(/replaced 3 occurrences/)
    expect(readFileSync(file('a.ts'), 'utf8')).toBe('$&y\n$&y\n$&y\n')
  })

  it('says when old_string is not found', async () => {
    await seed('a.ts', 'hello\n')
    expect(textOf(await ws.run(editTool, { file_path: 'a.ts', old_string: 'bye', new_string: 'x' }))).toMatch(/not found/)
  })

  it('preserves CRLF line endings when the model writes LF', async () => {
    await seed('win.txt', 'one\r\ntwo\r\nthree\r\n')
    const out = await ws.run(editTool, { file_path: 'win.txt', old_string: 'one\ntwo', new_string: 'uno\ndos' })
    expect(out.isError).toBeFalsy()
    expect(readFileSync(file('win.txt'), 'utf8')).toBe('uno\r\ndos\r\nthree\r\n')
  })

  it('refuses to edit a file that was not read, or that changed since', async () => {
    writeFileSync(file('a.ts'), 'a\n')
    expect(textOf(await ws.run(editTool, { file_path: 'a.ts', old_string: 'a', new_string: 'b' }))).toMatch(/not read it/)
    await ws.run(readTool, { file_path: 'a.ts' })
    writeFileSync(file('a.ts'), 'a changed\n')
    expect(textOf(await ws.run(editTool, { file_path: 'a.ts', old_string: 'a', new_string: 'b' }))).toMatch(/changed on disk/)
  })

  it('allows consecutive edits without re-reading', async () => {
    await seed('a.ts', 'a b c\n')
    await ws.run(editTool, { file_path: 'a.ts', old_string: 'a', new_string: 'A' })
    const out = await ws.run(editTool, { file_path: 'a.ts', old_string: 'b', new_string: 'B' })
    expect(out.isError).toBeFalsy()
    expect(readFileSync(file('a.ts'), 'utf8')).toBe('A B c\n')
  })

  it('refuses a missing file, an empty old_string and a no-op edit', async () => {
    await seed('a.ts', 'a\n')
    expect(textOf(await ws.run(editTool, { file_path: 'none.ts', old_string: 'a', new_string: 'b' }))).toMatch(/does not exist/)
    expect(textOf(await ws.run(editTool, { file_path: 'a.ts', old_string: '', new_string: 'b' }))).toMatch(/empty/)
    expect(textOf(await ws.run(editTool, { file_path: 'a.ts', old_string: 'a', new_string: 'a' }))).toMatch(/the same/)
  })

  it('refuses to edit a file that is not valid UTF-8 rather than corrupt it', async () => {
    writeFileSync(file('latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]))
    await ws.run(readTool, { file_path: 'latin1.txt' })
    const out = await ws.run(editTool, { file_path: 'latin1.txt', old_string: 'ca', new_string: 'CA' })
    expect(textOf(out)).toMatch(/not valid UTF-8/)
    expect(readFileSync(file('latin1.txt'))).toEqual(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]))
  })
})
