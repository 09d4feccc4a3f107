import { afterEach, describe, expect, it } from 'vitest'
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startMockModel, type MockModel, type MockResponse } from '../support/mock-model.js'
import { cliEnv, sandbox, spawnCli } from '../support/cli.js'
import { eventsOf } from '../support/events.js'
import { JsonlStore } from '../../src/store/jsonl-store.js'
import { prompt, rein, sessionLog, sessions, tree, type RewindBox } from './rewind-support.js'

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

async function worked(script: MockResponse[] = [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo agent > a.txt' } }] }, { text: 'Done.' }]) {
  const box = sandbox()
  writeFileSync(join(box.cwd, 'a.txt'), 'original\n')
  mock = await startMockModel({ script })
  const rbox: RewindBox = { cwd: box.cwd, home: box.home, url: mock.url }
  await prompt(rbox, 'work')
  return { box: rbox, id: sessions(box.home)[0].id }
}

/** Asserts one sentence on stderr, a failing exit code, and an untouched workspace and store. */
async function refused(box: RewindBox, args: string[], sentence: RegExp): Promise<void> {
  const files = tree(box.cwd)
  const count = sessions(box.home).length
  const r = await rein(box, args)
  expect(r.code).not.toBe(0)
  expect(r.stderr).toMatch(sentence)
  expect(r.stderr.trim().split('\n')).toHaveLength(1)
  expect(tree(box.cwd)).toEqual(files)
  expect(sessions(box.home)).toHaveLength(count)
}

describe('rein rewind refuses bad input in one sentence and changes nothing', () => {
  it('--to that is not a number, is negative or zero', async () => {
    const { box, id } = await worked()
    await refused(box, ['rewind', id, '--to', 'two'], /--to "two": a turn is a whole number of at least 1\./)
    await refused(box, ['rewind', id, '--to=-1'], /a turn is a whole number of at least 1/)
    await refused(box, ['rewind', id, '--to', '0'], /a turn is a whole number of at least 1/)
    await refused(box, ['rewind', id, '--to', '1.5'], /a turn is a whole number of at least 1/)
  })

  it('--to beyond the last turn', async () => {
    const { box, id } = await worked()
    await refused(box, ['rewind', id, '--to', '7'], new RegExp(`Session ${id} has no turn 7; its turns are 1 to 1\\.`))
    expect(eventsOf(sessionLog(box.home, id), 'checkpoint/rewind')).toEqual([])
  })

  it('a missing --to, and both conflict flags at once', async () => {
    const { box, id } = await worked()
    await refused(box, ['rewind', id], /Say which turn to go back to with --to/)
    await refused(box, ['rewind', id, '--to', '1', '--overwrite', '--keep-conflicts'], /only one of --overwrite and --keep-conflicts/)
  })

  it('an unknown session id, and one with ../ in it', async () => {
    const { box } = await worked()
    await refused(box, ['rewind', 'nosuchsession', '--to', '1'], /no session id starts with "nosuchsession"/)
    await refused(box, ['rewind', '../../etc/passwd', '--to', '1'], /no session id starts with "\.\.\/\.\.\/etc\/passwd"/)
  })

  it('a session another process is writing', async () => {
    const { box, id } = await worked()
    const lease = await new JsonlStore(box.home).lease(id)
    try {
      await refused(box, ['rewind', id, '--to', '1'], /is open for writing by process \d+/)
    } finally {
      await lease.release()
    }
  })

  it('a snapshot gone from the checkpoint repository', async () => {
    const { box, id } = await worked()
    rmSync(join(box.home, 'checkpoints'), { recursive: true, force: true })
    await refused(box, ['rewind', id, '--to', '1', '--code'], /is gone from the checkpoint repository .*nothing was changed\./)
    expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('agent\n')
  })
})

describe('rein rewind with nothing to restore', () => {
  it('--code for a turn that changed no file says so and exits non-zero', async () => {
    const { box, id } = await worked([{ text: 'only talk' }])
    await refused(box, ['rewind', id, '--to', '1', '--code'], /Rein changed no file from turn 1 on, so there is no code to put back\./)
    expect(eventsOf(sessionLog(box.home, id), 'checkpoint/rewind')).toEqual([])
  })

  it('--code for a turn whose snapshots failed names the failure', async () => {
    const box = sandbox()
    writeFileSync(join(box.home, 'checkpoints'), 'not a directory')
    mock = await startMockModel({ script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo x > a.txt' } }] }, { text: 'Done.' }] })
    const rbox: RewindBox = { cwd: box.cwd, home: box.home, url: mock.url }
    await prompt(rbox, 'work')
    const [source] = sessions(box.home)
    await refused(rbox, ['rewind', source.id, '--to', '1', '--code'], /No snapshot was taken from turn 1 on \(Checkpoint failed: .*\), so there is no code to put back\./)
  })
})

describe('a crash between the snapshot and the tool', () => {
  it('a step killed mid-command is repaired on resume, and the rewind still puts the files back', async () => {
    const box = sandbox()
    writeFileSync(join(box.cwd, 'a.txt'), 'original\n')
    mock = await startMockModel({
      script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo partial > a.txt; echo half > b.txt; sleep 30' } }] }, { text: 'resumed' }],
    })
    const rbox: RewindBox = { cwd: box.cwd, home: box.home, url: mock.url }
    const child = spawnCli(['-p', 'work', '--permission-mode', 'bypass'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    child.stdin.end()
    await waitFor(() => existsSync(join(box.cwd, 'b.txt')))
    child.kill('SIGKILL')
    await new Promise((resolve) => child.on('close', resolve))
    const [source] = sessions(box.home)
    expect(eventsOf(source.events, 'checkpoint/created')).toHaveLength(1)
    expect(eventsOf(source.events, 'checkpoint/changes')).toHaveLength(0)

    await prompt(rbox, 'go on', source.id)
    // No step listed what the killed command changed, so its files count as changed by someone else.
    const r = await rein(rbox, ['rewind', source.id, '--to', '1', '--code', '--overwrite'])
    expect(r.code, r.stderr).toBe(0)
    expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('original\n')
    expect(existsSync(join(box.cwd, 'b.txt'))).toBe(false)
    expect((await rein(rbox, ['sessions', 'verify', source.id])).code).toBe(0)
  })
})

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 25))
  if (!condition()) throw new Error('the condition did not come true within 10 s')
}
