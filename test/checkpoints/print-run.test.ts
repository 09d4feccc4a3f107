import { afterEach, describe, expect, it } from 'vitest'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { SessionEvent } from '../../src/session/events.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { eventsOf } from '../support/events.js'

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

function events(home: string): SessionEvent[] {
  const root = join(home, 'sessions')
  const [dir] = readdirSync(root)
  const [file] = readdirSync(join(root, dir)).filter((f) => f.endsWith('.jsonl'))
  return readFileSync(join(root, dir, file), 'utf8')
    .split('\n')
    .filter(Boolean)
    .slice(1)
    .map((line) => JSON.parse(line) as SessionEvent)
}

describe('rein -p with checkpoints', () => {
  it('a step whose bash command edits, deletes and creates files logs its checkpoint and the paths it changed', async () => {
    const box = sandbox()
    writeFileSync(join(box.cwd, 'a.txt'), 'one\n')
    writeFileSync(join(box.cwd, 'b.txt'), 'gone soon\n')
    mock = await startMockModel({
      script: [
        { toolCalls: [{ name: 'read', arguments: { path: 'a.txt' } }] },
        { toolCalls: [{ name: 'bash', arguments: { command: "sed -i 's/one/two/' a.txt; rm b.txt; echo new > c.txt" } }] },
        { text: 'Done.' },
      ],
    })
    const r = await runCli(['-p', 'change things', '--permission-mode', 'bypass'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const log = events(box.home)
    const created = eventsOf(log, 'checkpoint/created')
    expect(created.map((e) => [e.data.turn, e.data.step, e.data.files])).toEqual([[1, 2, 2]])
    expect(created[0].data.commit).toMatch(/^[0-9a-f]{40}$/)
    const changes = eventsOf(log, 'checkpoint/changes')
    expect(changes.map(({ data: { turn, step, paths } }) => ({ turn, step, paths }))).toEqual([
      {
        turn: 1,
        step: 2,
        paths: [
          { path: 'a.txt', kind: 'modified' },
          { path: 'b.txt', kind: 'deleted' },
          { path: 'c.txt', kind: 'added' },
        ],
      },
    ])
    // What each path holds after the step (null: gone), so a rewind can tell later edits by someone else.
    expect(changes[0].data.after?.map((a) => [a.path, a.id === null ? null : /^[0-9a-f]{40}$/.test(a.id)])).toEqual([
      ['a.txt', true],
      ['b.txt', null],
      ['c.txt', true],
    ])
    const order = log.map((e) => e.type)
    const call = log.findIndex((e) => e.type === 'tool/call' && e.data.name === 'bash')
    expect(order.indexOf('checkpoint/created')).toBeLessThan(call)
    const listed = order.indexOf('checkpoint/changes')
    expect(listed).toBeGreaterThan(call)
    expect(order.indexOf('step/end', call)).toBeGreaterThan(listed)
    expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('two\n')
  })

  it('a snapshot that cannot be written is logged and reported once, and the tool still runs', async () => {
    const box = sandbox()
    // A file where the checkpoints directory should be: the shadow repository cannot be created.
    writeFileSync(join(box.home, 'checkpoints'), 'not a directory')
    mock = await startMockModel({
      script: [
        { toolCalls: [{ name: 'bash', arguments: { command: 'echo x > first.txt' } }] },
        { toolCalls: [{ name: 'bash', arguments: { command: 'echo y > second.txt' } }] },
        { text: 'Done.' },
      ],
    })
    const r = await runCli(['-p', 'make files', '--permission-mode', 'bypass'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.code).toBe(0)
    expect(readdirSync(box.cwd).sort()).toEqual(['first.txt', 'second.txt'])
    const created = eventsOf(events(box.home), 'checkpoint/created')
    expect(created.map((e) => [e.data.step, typeof e.data.error])).toEqual([
      [1, 'string'],
      [2, 'string'],
    ])
    expect(r.stderr.match(/without a checkpoint/g)).toHaveLength(1)
  })
})
