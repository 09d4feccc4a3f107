import { afterEach, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startMockModel, type MockModel, type MockResponse } from '../support/mock-model.js'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { eventsOf } from '../support/events.js'
import { prompt, rein, sessionLog, sessions, tree, type RewindBox } from './rewind-support.js'
import { fingerprint } from './shadow-support.js'

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

async function boxWith(script: MockResponse[], files: Record<string, string> = {}): Promise<RewindBox> {
  const box = sandbox()
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(box.cwd, path, '..'), { recursive: true })
    writeFileSync(join(box.cwd, path), content)
  }
  mock = await startMockModel({ script })
  return { cwd: box.cwd, home: box.home, url: mock.url }
}

const bashTurn = (command: string): MockResponse[] => [{ toolCalls: [{ name: 'bash', arguments: { command } }] }, { text: `ran ${command}` }]

/** The text of every message of the last request the mock received. */
function lastRequestText(): string {
  const body = mock?.requests.at(-1)?.body as { messages: unknown[] }
  return JSON.stringify(body.messages)
}

describe('rewinding code, conversation or both', () => {
  it('--code restores the files and leaves the conversation alone: no fork is made', async () => {
    const box = await boxWith([...bashTurn('echo changed > a.txt')], { 'a.txt': 'original\n' })
    await prompt(box, 'first prompt')
    const [source] = sessions(box.home)
    const r = await rein(box, ['rewind', source.id, '--to', '1', '--code'])
    expect(r.code, r.stderr).toBe(0)
    expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('original\n')
    expect(sessions(box.home)).toHaveLength(1)
    expect(r.stdout).not.toContain('--resume')
  })

  it('typed in another directory, rewinds the files of the session’s own workspace', async () => {
    const box = await boxWith([...bashTurn('echo changed > a.txt')], { 'a.txt': 'original\n' })
    await prompt(box, 'first prompt')
    const [source] = sessions(box.home)
    const r = await runCli(['rewind', source.id, '--to', '1', '--code'], { cwd: box.home, env: cliEnv({ url: box.url, home: box.home }) })
    expect(r.code, r.stderr).toBe(0)
    expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('original\n')
  })

  it('--conversation forks before the turn, leaves the files, and the fork asks the model only what came before', async () => {
    const box = await boxWith([...bashTurn('echo one > a.txt'), ...bashTurn('echo two > a.txt'), { text: 'fresh answer' }], { 'a.txt': 'original\n' })
    await prompt(box, 'FIRST-PROMPT')
    const [source] = sessions(box.home)
    await prompt(box, 'SECOND-PROMPT', source.id)
    const r = await rein(box, ['rewind', source.id, '--to', '2', '--conversation', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const out = JSON.parse(r.stdout) as { outcome: string; fork: { id: string } }
    expect(out.outcome).toBe('rewound')
    expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('two\n')

    await prompt(box, 'THIRD-PROMPT', out.fork.id)
    const sent = lastRequestText()
    expect(sent).toContain('FIRST-PROMPT')
    expect(sent).toContain('THIRD-PROMPT')
    expect(sent).not.toContain('SECOND-PROMPT')
    const list = await rein(box, ['sessions', 'list'])
    expect(list.stdout).toContain(source.id.slice(0, 8))
    expect(list.stdout).toContain(out.fork.id.slice(0, 8))
    for (const id of [source.id, out.fork.id]) expect((await rein(box, ['sessions', 'verify', id])).code).toBe(0)
  })

  it('a turn that changed no file rewinds only the conversation and says there was no code to put back', async () => {
    const box = await boxWith([{ text: 'just talk' }])
    await prompt(box, 'talk')
    const [source] = sessions(box.home)
    const r = await rein(box, ['rewind', source.id, '--to', '1'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('no code to put back')
    expect(sessions(box.home)).toHaveLength(2)
  })
})

describe('undoing a rewind', () => {
  it('--undo puts back the files the rewind replaced, and a second undo finds nothing left and says so', async () => {
    const box = await boxWith([...bashTurn('echo agent > a.txt; echo made > b.txt')], { 'a.txt': 'original\n' })
    await prompt(box, 'work')
    const [source] = sessions(box.home)
    const after = tree(box.cwd)
    expect((await rein(box, ['rewind', source.id, '--to', '1'])).code).toBe(0)
    expect(existsSync(join(box.cwd, 'b.txt'))).toBe(false)

    const undo = await rein(box, ['rewind', source.id, '--undo'])
    expect(undo.code, undo.stderr).toBe(0)
    expect(tree(box.cwd)).toEqual(after)
    const log = sessionLog(box.home, source.id)
    const [rewind] = eventsOf(log, 'checkpoint/rewind')
    expect(eventsOf(log, 'checkpoint/rewind-undone').map((e) => e.data.rewind)).toEqual([rewind.seq])

    const again = await rein(box, ['rewind', source.id, '--undo'])
    expect(again.code).toBe(1)
    expect(again.stderr).toBe('rein: There is no rewind of the code in this session to undo.\n')
    expect((await rein(box, ['sessions', 'verify', source.id])).code).toBe(0)
  })

  it('the fork a rewind made can undo it too', async () => {
    const box = await boxWith([...bashTurn('echo agent > a.txt')], { 'a.txt': 'original\n' })
    await prompt(box, 'work')
    const [source] = sessions(box.home)
    const r = await rein(box, ['rewind', source.id, '--to', '1', '--json'])
    const fork = (JSON.parse(r.stdout) as { fork: { id: string } }).fork.id
    const undo = await rein(box, ['rewind', fork, '--undo'])
    expect(undo.code, undo.stderr).toBe(0)
    expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('agent\n')
    expect((await rein(box, ['sessions', 'verify', fork])).code).toBe(0)
  })
})

describe('what a rewind leaves alone', () => {
  it('a file over the size limit and an ignored node_modules stay as the agent left them', async () => {
    const box = await boxWith(
      [...bashTurn('head -c 11000000 /dev/zero > big.bin; mkdir -p node_modules/x; echo dep > node_modules/x/i.js; echo v2 > a.txt')],
      { 'a.txt': 'v1\n' },
    )
    await prompt(box, 'install')
    const [source] = sessions(box.home)
    const r = await rein(box, ['rewind', source.id, '--to', '1', '--code'])
    expect(r.code, r.stderr).toBe(0)
    expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('v1\n')
    expect(statSync(join(box.cwd, 'big.bin')).size).toBe(11_000_000)
    expect(readFileSync(join(box.cwd, 'node_modules/x/i.js'), 'utf8')).toBe('dep\n')
  })

  it("in a git repository, the user's index, refs, stash and hooks are byte-identical after a rewind and its undo", async () => {
    const box = await boxWith([...bashTurn('echo agent > tracked.txt; echo new > created.txt')])
    const git = (...args: string[]) =>
      execFileSync('git', args, { cwd: box.cwd, env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } }).toString()
    git('init', '--quiet')
    writeFileSync(join(box.cwd, 'tracked.txt'), 'one\n')
    writeFileSync(join(box.cwd, 'stashed.txt'), 'a\n')
    git('add', '.')
    git('commit', '--quiet', '-m', 'first')
    writeFileSync(join(box.cwd, 'stashed.txt'), 'b\n')
    git('stash', '--quiet')
    writeFileSync(join(box.cwd, 'tracked.txt'), 'one, staged\n')
    git('add', 'tracked.txt')
    writeFileSync(join(box.cwd, '.git', 'hooks', 'post-checkout'), `#!/bin/sh\ntouch ${join(box.cwd, '..', 'HOOK-RAN')}\n`, { mode: 0o755 })
    await prompt(box, 'edit')
    const before = fingerprint(join(box.cwd, '.git'))
    const [source] = sessions(box.home)
    expect((await rein(box, ['rewind', source.id, '--to', '1', '--code'])).code).toBe(0)
    expect(readFileSync(join(box.cwd, 'tracked.txt'), 'utf8')).toBe('one, staged\n')
    expect(existsSync(join(box.cwd, 'created.txt'))).toBe(false)
    expect(fingerprint(join(box.cwd, '.git'))).toEqual(before)
    expect((await rein(box, ['rewind', source.id, '--undo'])).code).toBe(0)
    expect(fingerprint(join(box.cwd, '.git'))).toEqual(before)
    expect(readdirSync(join(box.cwd, '..'))).not.toContain('HOOK-RAN')
    expect(git('stash', 'list')).toContain('stash@{0}')
  })
})

