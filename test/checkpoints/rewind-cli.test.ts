import { afterEach, describe, expect, it } from 'vitest'
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { sandbox } from '../support/cli.js'
import { eventsOf } from '../support/events.js'
import { inTerminal, prompt, rein, sessionLog, sessions, tree, type RewindBox } from './rewind-support.js'

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

/** A workspace with text, binary, a directory and a symlink, and a mock that runs `commands` as one bash step each turn. */
async function setup(turns: string[]): Promise<RewindBox> {
  const box = sandbox()
  writeFileSync(join(box.cwd, 'a.txt'), 'one\n')
  writeFileSync(join(box.cwd, 'b.txt'), 'bee\n')
  writeFileSync(join(box.cwd, 'm.txt'), 'moved later\n')
  writeFileSync(join(box.cwd, 'blob.bin'), Buffer.from([0, 1, 2, 255, 254, 0, 10, 13]))
  mkdirSync(join(box.cwd, 'dir/sub'), { recursive: true })
  writeFileSync(join(box.cwd, 'dir/sub/x.txt'), 'x\n')
  symlinkSync('a.txt', join(box.cwd, 'link'))
  mock = await startMockModel({
    script: turns.flatMap((command) => [{ toolCalls: [{ name: 'bash', arguments: { command } }] }, { text: 'Done.' }]),
  })
  return { cwd: box.cwd, home: box.home, url: mock.url }
}

const TURN_ONE = [
  "sed -i 's/one/two/' a.txt",
  'rm b.txt',
  'mv m.txt moved.txt',
  'echo new > untracked.txt',
  "printf '\\000\\377\\001' > blob.bin",
  'rm -r dir',
  'ln -sf moved.txt link',
].join('; ')

describe('rein rewind', () => {
  it('in a workspace that is not a git repository, puts back what a turn of bash commands changed and continues the conversation in a fork', async () => {
    const box = await setup([TURN_ONE, 'echo three >> a.txt'])
    const original = tree(box.cwd)
    await prompt(box, 'change everything')
    const [source] = sessions(box.home)
    await prompt(box, 'append', source.id)
    expect(tree(box.cwd)).not.toEqual(original)

    const r = await rein(box, ['rewind', source.id.slice(0, 8), '--to', '1'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(tree(box.cwd)).toEqual(original)
    expect(lstatSync(join(box.cwd, 'link')).isSymbolicLink()).toBe(true)
    const fork = sessions(box.home).find((s) => s.header.parent?.id === source.id)
    expect(fork).toBeDefined()
    expect(r.stdout).toContain(`rein --resume ${fork?.id}`)
    expect(r.stdout).toMatch(/removed\s+untracked\.txt/)

    const logged = eventsOf(sessionLog(box.home, source.id), 'checkpoint/rewind')
    expect(logged).toHaveLength(1)
    expect(logged[0].data.fork?.id).toBe(fork?.id)
    expect(logged[0].data.conflicts).toEqual([])
    expect(eventsOf(fork?.events ?? [], 'checkpoint/rewind')).toHaveLength(1)
    for (const id of [source.id, fork?.id ?? '']) {
      const verify = await rein(box, ['sessions', 'verify', id])
      expect(verify.code, verify.stdout + verify.stderr).toBe(0)
    }
  })
})

describe('rein rewind with files changed since Rein wrote them', () => {
  /** Turn 1 rewrites a.txt; afterwards the user edits a.txt and b.txt by hand. */
  async function edited(): Promise<{ box: RewindBox; id: string }> {
    const box = await setup(["sed -i 's/one/agent/' a.txt; echo made > new.txt"])
    await prompt(box, 'edit a')
    writeFileSync(join(box.cwd, 'a.txt'), 'user edit\n')
    writeFileSync(join(box.cwd, 'b.txt'), 'user too\n')
    return { box, id: sessions(box.home)[0].id }
  }

  it('refuses without a terminal, naming the files and both flags, and changes nothing', async () => {
    const { box, id } = await edited()
    const before = tree(box.cwd)
    const r = await rein(box, ['rewind', id, '--to', '1'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('a.txt, b.txt')
    expect(r.stderr).toContain('--overwrite')
    expect(r.stderr).toContain('--keep-conflicts')
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(tree(box.cwd)).toEqual(before)
    expect(sessions(box.home)).toHaveLength(1)
    expect(eventsOf(sessionLog(box.home, id), 'checkpoint/rewind')).toEqual([])
  })

  it('--overwrite puts the conflicting files back too', async () => {
    const { box, id } = await edited()
    const r = await rein(box, ['rewind', id, '--to', '1', '--code', '--overwrite'])
    expect(r.code, r.stderr).toBe(0)
    expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('one\n')
    expect(readFileSync(join(box.cwd, 'b.txt'), 'utf8')).toBe('bee\n')
    expect(existsSync(join(box.cwd, 'new.txt'))).toBe(false)
    const [logged] = eventsOf(sessionLog(box.home, id), 'checkpoint/rewind')
    expect(logged.data.conflicts).toEqual(['a.txt', 'b.txt'])
    expect(logged.data.kept).toEqual([])
  })

  it('--keep-conflicts restores everything but the conflicting files', async () => {
    const { box, id } = await edited()
    const r = await rein(box, ['rewind', id, '--to', '1', '--code', '--keep-conflicts'])
    expect(r.code, r.stderr).toBe(0)
    expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('user edit\n')
    expect(readFileSync(join(box.cwd, 'b.txt'), 'utf8')).toBe('user too\n')
    expect(existsSync(join(box.cwd, 'new.txt'))).toBe(false)
    expect(r.stdout).toContain('Kept as they are: a.txt, b.txt')
  })

  it('in a terminal, asks and overwrites on yes', async () => {
    const { box, id } = await edited()
    const tty = await inTerminal(box, ['rewind', id, '--to', '1', '--code'], 'y\n')
    expect(tty.output).toContain('Overwrite them? [y/N]')
    expect(tty.code, tty.output).toBe(0)
    expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('one\n')
  })

  it('in a terminal, keeps the conflicting files on no and restores the rest', async () => {
    const { box, id } = await edited()
    const tty = await inTerminal(box, ['rewind', id, '--to', '1', '--code'], 'n\n')
    expect(tty.code, tty.output).toBe(0)
    expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('user edit\n')
    expect(readFileSync(join(box.cwd, 'b.txt'), 'utf8')).toBe('user too\n')
    expect(existsSync(join(box.cwd, 'new.txt'))).toBe(false)
    expect(eventsOf(sessionLog(box.home, id), 'checkpoint/rewind')[0].data.kept).toEqual(['a.txt', 'b.txt'])
  })

  it('--dry-run lists the changes and the conflicts and changes nothing', async () => {
    const { box, id } = await edited()
    const before = tree(box.cwd)
    const r = await rein(box, ['rewind', id, '--to', '1', '--dry-run', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const out = JSON.parse(r.stdout) as { outcome: string; code: { conflicts: string[]; changes: { path: string }[] } }
    expect(out.outcome).toBe('planned')
    expect(out.code.conflicts).toEqual(['a.txt', 'b.txt'])
    expect(out.code.changes.map((c) => c.path).sort()).toEqual(['a.txt', 'b.txt', 'new.txt'])
    expect(tree(box.cwd)).toEqual(before)
    expect(sessions(box.home)).toHaveLength(1)
    expect(eventsOf(sessionLog(box.home, id), 'checkpoint/rewind')).toEqual([])
  })
})
