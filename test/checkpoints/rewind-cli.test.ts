import { afterEach, describe, expect, it } from 'vitest'
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { sandbox } from '../support/cli.js'
import { eventsOf } from '../support/events.js'
import { prompt, rein, sessionLog, sessions, tree, type RewindBox } from './rewind-support.js'

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
  it('puts back what a turn of bash commands changed and continues the conversation in a fork', async () => {
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
