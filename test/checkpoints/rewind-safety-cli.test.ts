import { afterEach, describe, expect, it } from 'vitest'
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startMockModel, type MockModel, type MockResponse } from '../support/mock-model.js'
import { sandbox } from '../support/cli.js'
import { prompt, rein, sessionLog, sessions, type RewindBox } from './rewind-support.js'
import { fingerprint } from './shadow-support.js'

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

async function boxWith(script: MockResponse[]): Promise<RewindBox> {
  const box = sandbox()
  mock = await startMockModel({ script })
  return { cwd: box.cwd, home: box.home, url: mock.url }
}

const bashTurn = (command: string): MockResponse[] => [{ toolCalls: [{ name: 'bash', arguments: { command } }] }, { text: `ran ${command}` }]
const mode = (path: string) => lstatSync(path).mode & 0o7777

describe('a rewind never destroys work', () => {
  it('a file the agent never touched, grown past the 10 MiB limit by the user, is not overwritten by the rewind', async () => {
    const box = await boxWith(bashTurn('echo agent > a.txt'))
    writeFileSync(join(box.cwd, 'a.txt'), 'original\n')
    writeFileSync(join(box.cwd, 'data.log'), 'x'.repeat(1024))
    await prompt(box, 'edit a.txt')
    const [session] = sessions(box.home)
    const big = Buffer.alloc(11 * 1024 * 1024, 'u')
    writeFileSync(join(box.cwd, 'data.log'), big)

    const r = await rein(box, ['rewind', session.id, '--to', '1', '--code', '--overwrite'])
    expect(r.code, r.stderr).toBe(0)
    expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('original\n')
    expect(readFileSync(join(box.cwd, 'data.log')).equals(big)).toBe(true)
    const undo = await rein(box, ['rewind', session.id, '--undo', '--overwrite'])
    expect(undo.code, undo.stderr).toBe(0)
    expect(readFileSync(join(box.cwd, 'data.log')).equals(big)).toBe(true)
    expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('agent\n')
  })

  it('0600 and 0700 files keep their bits through a rewind and its --undo', async () => {
    const box = await boxWith(bashTurn('echo MORE=1 >> .env && echo "echo more" >> run.sh && rm keep.sh && printf "#!/bin/sh\\n" > new.sh && chmod 700 new.sh'))
    writeFileSync(join(box.cwd, '.env'), 'TOKEN=1\n')
    chmodSync(join(box.cwd, '.env'), 0o600)
    writeFileSync(join(box.cwd, 'run.sh'), '#!/bin/sh\n')
    chmodSync(join(box.cwd, 'run.sh'), 0o700)
    writeFileSync(join(box.cwd, 'keep.sh'), '#!/bin/sh\n')
    chmodSync(join(box.cwd, 'keep.sh'), 0o750)
    await prompt(box, 'change them')
    const [session] = sessions(box.home)
    const after = fingerprint(box.cwd)

    const r = await rein(box, ['rewind', session.id, '--to', '1', '--code'])
    expect(r.code, r.stderr).toBe(0)
    expect(mode(join(box.cwd, '.env'))).toBe(0o600)
    expect(mode(join(box.cwd, 'run.sh'))).toBe(0o700)
    expect(mode(join(box.cwd, 'keep.sh'))).toBe(0o750)
    expect(existsSync(join(box.cwd, 'new.sh'))).toBe(false)

    const undo = await rein(box, ['rewind', session.id, '--undo'])
    expect(undo.code, undo.stderr).toBe(0)
    expect(fingerprint(box.cwd)).toEqual(after)
    expect(mode(join(box.cwd, 'new.sh'))).toBe(0o700)
    expect(mode(join(box.cwd, '.env'))).toBe(0o600)
  })

  it('the settings file "Allow always" writes during a session survives a rewind of code and conversation, and its undo', async () => {
    // The turn's bash command stands in for "Allow always", which writes the file while the turn runs.
    const box = await boxWith([
      ...bashTurn('mkdir -p .rein .claude && echo \'{"permissions":{"allow":["Bash(ls)"]}}\' > .rein/settings.local.json && echo "{}" > .claude/settings.local.json && echo agent > a.txt'),
    ])
    writeFileSync(join(box.cwd, 'a.txt'), 'original\n')
    await prompt(box, 'work')
    const [session] = sessions(box.home)
    const changes = sessionLog(box.home, session.id).find((e) => e.type === 'checkpoint/changes')
    expect(changes?.type === 'checkpoint/changes' && changes.data.paths).toEqual([{ path: 'a.txt', kind: 'modified' }])

    const r = await rein(box, ['rewind', session.id, '--to', '1'])
    expect(r.code, r.stderr).toBe(0)
    expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('original\n')
    expect(readFileSync(join(box.cwd, '.rein', 'settings.local.json'), 'utf8')).toContain('Bash(ls)')
    expect(existsSync(join(box.cwd, '.claude', 'settings.local.json'))).toBe(true)
    const undo = await rein(box, ['rewind', session.id, '--undo'])
    expect(undo.code, undo.stderr).toBe(0)
    expect(readFileSync(join(box.cwd, '.rein', 'settings.local.json'), 'utf8')).toContain('Bash(ls)')
  })

  it('an interrupted rewind is reported when the session is next opened, with the command that undoes it and the one that finishes it', async () => {
    const box = await boxWith([...bashTurn('echo agent > a.txt'), { text: 'resumed', repeat: true }])
    writeFileSync(join(box.cwd, 'a.txt'), 'original\n')
    mkdirSync(join(box.cwd, 'd'))
    writeFileSync(join(box.cwd, 'd', 'b.txt'), 'b\n')
    await prompt(box, 'edit')
    const [session] = sessions(box.home)
    // What a rewind killed after its undo point leaves: the point logged, no `checkpoint/rewind` after it.
    const log = join(box.home, 'sessions')
    const file = sessionFile(log, session.id)
    const events = sessionLog(box.home, session.id)
    const created = events.find((e) => e.type === 'checkpoint/created')
    const target = created?.type === 'checkpoint/created' ? created.data.commit : undefined
    const point = {
      seq: events.length,
      time: Date.now(),
      type: 'checkpoint/undo-point',
      data: { of: 'rewind', turn: 1, target, before: target, paths: [{ path: 'a.txt', kind: 'modified' }], after: [{ path: 'a.txt', id: null }], token: 'abcdef123456', conversation: false },
    }
    writeFileSync(file, readFileSync(file, 'utf8') + JSON.stringify(point) + '\n')
    writeFileSync(join(box.cwd, '.~rein-abcdef123456-0'), 'half written')

    const resumed = await rein(box, ['-p', 'go on', '--resume', session.id])
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(resumed.stderr).toContain(
      `rein: The rewind of session ${session.id} to turn 1 was interrupted part way, so some files may be put back and others not: \`rein rewind ${session.id} --undo\` (\`/rewind undo\` in the terminal UI) puts every file back as it was before it, and \`rein rewind ${session.id} --to 1 --code\` finishes it.`,
    )
    const undo = await rein(box, ['rewind', session.id, '--undo', '--overwrite'])
    expect(undo.code, undo.stderr).toBe(0)
    expect(undo.stdout).toContain('Undid the interrupted rewind to turn 1')
    expect(existsSync(join(box.cwd, '.~rein-abcdef123456-0'))).toBe(false)
    const again = await rein(box, ['-p', 'more', '--resume', session.id])
    expect(again.stderr).not.toContain('interrupted')
    const verify = await rein(box, ['sessions', 'verify', session.id])
    expect(verify.code, verify.stdout + verify.stderr).toBe(0)
  })
})

function sessionFile(root: string, id: string): string {
  for (const dir of readdirSync(root)) {
    const file = join(root, dir, `${id}.jsonl`)
    if (existsSync(file)) return file
  }
  throw new Error(`no log for ${id}`)
}
