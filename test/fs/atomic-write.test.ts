import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { PRIVATE_FILE, writeFileAtomic, writeFileAtomicSync, type AtomicWriteOptions } from '../../src/fs/atomic-write.js'

let root: string
beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'atomic-')))
})
afterEach(() => rmSync(root, { recursive: true, force: true }))

const leftovers = (dir: string): string[] => readdirSync(dir).filter((name) => name.endsWith('.tmp'))

// Both forms keep the same promises; each test runs against each.
const FORMS: [string, (file: string, data: string, options?: AtomicWriteOptions) => Promise<{ created: boolean }>][] = [
  ['async', writeFileAtomic],
  ['sync', async (file, data, options) => writeFileAtomicSync(file, data, options)],
]

for (const [form, write] of FORMS) {
  describe(`writeFileAtomic (${form})`, () => {
    it('creates a file and its missing directories, says it created it, and leaves no temporary file', async () => {
      const file = path.join(root, 'a', 'b', 'x.json')
      expect(await write(file, '{"v":1}\n')).toEqual({ created: true })
      expect(readFileSync(file, 'utf8')).toBe('{"v":1}\n')
      expect(leftovers(path.dirname(file))).toEqual([])
    })

    it('replaces an existing file whole and keeps its mode', async () => {
      const file = path.join(root, 'x.sh')
      writeFileSync(file, 'old old old old')
      chmodSync(file, 0o750)
      expect(await write(file, 'new')).toEqual({ created: false })
      expect(readFileSync(file, 'utf8')).toBe('new')
      expect(statSync(file).mode & 0o777).toBe(0o750)
    })

    it('writes a private file owner-only in an owner-only directory whatever the umask and the old mode', async () => {
      const dir = path.join(root, 'home')
      mkdirSync(dir, { mode: 0o755 })
      chmodSync(dir, 0o755)
      const file = path.join(dir, 'trust.json')
      writeFileSync(file, '{}')
      chmodSync(file, 0o644)
      await write(file, '{"trusted":true}', PRIVATE_FILE)
      expect(statSync(file).mode & 0o777).toBe(0o600)
      expect(statSync(dir).mode & 0o777).toBe(0o700)
    })

    it('leaves the old target untouched and removes its temporary file when the rename fails', async () => {
      const target = path.join(root, 'taken')
      mkdirSync(path.join(target, 'inside'), { recursive: true })
      await expect(write(target, 'data')).rejects.toThrow()
      expect(existsSync(path.join(target, 'inside'))).toBe(true)
      expect(leftovers(root)).toEqual([])
    })

    it('refuses, writing nothing, when a checked directory now resolves elsewhere', async () => {
      const outside = path.join(root, 'outside')
      mkdirSync(outside)
      symlinkSync(outside, path.join(root, 'swapped'))
      await expect(write(path.join(root, 'swapped', 'x.txt'), 'data', { checkedDirectory: true })).rejects.toThrow(/now resolves to .*outside.*nothing was written/)
      expect(readdirSync(outside)).toEqual([])
    })

    it('writes through a directory link when the caller did not ask for the check (a linked home)', async () => {
      const real = path.join(root, 'real-home')
      mkdirSync(real)
      symlinkSync(real, path.join(root, 'home-link'))
      await write(path.join(root, 'home-link', 'settings.json'), '{}')
      expect(readFileSync(path.join(real, 'settings.json'), 'utf8')).toBe('{}')
    })
  })
}
