import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Session } from '../../src/session/session.js'
import { JsonlStore } from '../../src/store/jsonl-store.js'
import { appendTurn } from '../session/conversation.js'
import { runCliSync } from '../support/cli.js'

let home: string
let project: string
let session: Session

/** Runs the built `rein` in the project directory with its own REIN_HOME. */
function rein(...args: string[]): { stdout: string; stderr: string; status: number | null } {
  const result = runCliSync(args, { cwd: project, env: { ...process.env, REIN_HOME: home } })
  return { stdout: result.stdout, stderr: result.stderr, status: result.code }
}

beforeAll(async () => {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'rein-cli-')))
  home = join(root, 'home')
  project = join(root, 'project')
  await mkdir(project)
  session = await Session.create(new JsonlStore(home), { cwd: project })
  appendTurn(session, 1, 'explain the parser')
  session.append('turn/start', { turn: 2 })
  session.append('step/start', { turn: 2, step: 1 })
  session.append('context/message', {
    id: 'c',
    content: [{ type: 'text', text: '<system-reminder>\nPermission mode: plan\n</system-reminder>' }],
    source: { kind: 'permission-mode' },
  })
  session.append('steering/message', { id: 's', turn: 2, content: [{ type: 'text', text: 'focus on errors' }], source: { kind: 'user' } })
  session.append('assistant/message', { turn: 2, step: 1, message: { role: 'assistant', content: [{ type: 'text', text: 'Errors are thrown as SessionError.' }] } })
  session.append('step/end', { turn: 2, step: 1 })
  session.append('turn/end', { turn: 2, reason: 'completed' })
  await session.close()
})

afterAll(async () => {
  await rm(resolve(home, '..'), { recursive: true, force: true })
})

describe('rein sessions', () => {
  it('lists the sessions of the current directory with a short id, turns and title', () => {
    const { stdout, status } = rein('sessions', 'list')
    expect(status).toBe(0)
    const [head, row] = stdout.trimEnd().split('\n')
    expect(head).toMatch(/^ID\s+UPDATED\s+TURNS\s+SIZE\s+TITLE$/)
    expect(row).toContain(session.id.slice(0, 8))
    expect(row).toMatch(/\s2\s.*explain the parser$/)
  })

  it('shows a transcript that marks injected context and steering, by unique prefix', () => {
    const { stdout, status } = rein('sessions', 'show', session.id.slice(0, 6))
    expect(status).toBe(0)
    expect(stdout).toContain('> explain the parser')
    expect(stdout).toContain('[context] <system-reminder>')
    expect(stdout).toContain('[steering] focus on errors')
    expect(stdout).toContain('→ bash {"command":"echo 1.0"}')
    expect(stdout).toContain('← bash\n  output of call-1-0')
    expect(stdout).toContain('Errors are thrown as SessionError.')
  })

  it('exports JSONL identical to the file, JSON that parses, and Markdown', async () => {
    const jsonl = rein('sessions', 'export', session.id, '--format', 'jsonl')
    expect(jsonl.stdout).toBe(await readFile(session.path!, 'utf8'))
    const json = JSON.parse(rein('sessions', 'export', session.id, '--format', 'json').stdout)
    expect(json.header.id).toBe(session.id)
    expect(json.events).toHaveLength(session.length)
    const md = rein('sessions', 'export', session.id, '--format', 'md').stdout
    expect(md).toMatch(/^# Session /)
    expect(md).toContain('**[steering]**')
  })

  it('forks a session, prints the new id, and lists the fork', () => {
    const forked = rein('sessions', 'fork', session.id, '--at', String(session.events.findIndex((e) => e.type === 'turn/end')))
    expect(forked.status).toBe(0)
    const id = forked.stdout.trim()
    expect(id).toMatch(/^[0-9a-f-]{36}$/)
    expect(rein('sessions', 'list').stdout).toContain(id.slice(0, 8))
    expect(rein('sessions', 'verify', id).status).toBe(0)
  })

  it('refuses to fork inside a turn with one sentence and exit code 1', () => {
    const { stderr, status } = rein('sessions', 'fork', session.id, '--at', '2')
    expect(status).toBe(1)
    expect(stderr).toMatch(/^rein: cannot fork session .* at seq 2: it is inside turn 1, .*\n$/)
  })

  it('verifies a clean session with exit code 0', () => {
    const { stdout, status } = rein('sessions', 'verify', session.id)
    expect(status).toBe(0)
    expect(stdout).toBe(`session ${session.id}: ${session.length} events, no problems.\n`)
  })

  it('reports verify problems with their seqs and exits 1', async () => {
    const broken = await Session.create(new JsonlStore(home), { cwd: project })
    broken.append('turn/start', { turn: 1 })
    broken.append('assistant/message', {
      turn: 1,
      step: 1,
      message: { role: 'assistant', content: [{ type: 'tool-call', id: 'x', name: 'bash', arguments: '{}' }] },
    })
    broken.append('turn/end', { turn: 1, reason: 'completed' })
    await broken.close()
    const { stdout, stderr, status } = rein('sessions', 'verify', broken.id)
    expect(status).toBe(1)
    expect(stdout).toContain('seq 1: tool call x (bash) has no tool/result before its turn ends')
    expect(stderr).toMatch(/^rein: session .* has 2 problems\.\n$/)
  })

  it('notes a session that merely crashed mid-turn and exits 0, since resume closes what it left open', async () => {
    const crashed = await Session.create(new JsonlStore(home), { cwd: project })
    crashed.append('turn/start', { turn: 1 })
    crashed.append('step/start', { turn: 1, step: 1 })
    crashed.append('user/message', { id: 'u1', content: [{ type: 'text', text: 'run it' }], source: { kind: 'user' } })
    crashed.append('assistant/message', {
      turn: 1,
      step: 1,
      message: { role: 'assistant', content: [{ type: 'tool-call', id: 'x', name: 'bash', arguments: '{}' }] },
    })
    crashed.append('tool/call', { turn: 1, step: 1, callId: 'x', name: 'bash', arguments: '{}' })
    await crashed.close()
    const { stdout, stderr, status } = rein('sessions', 'verify', crashed.id)
    expect(stderr).toBe('')
    expect(status).toBe(0)
    expect(stdout).toContain('note: seq 0: turn 1 ends mid-turn')
    expect(stdout).toContain('note: seq 3: tool call x has no result yet; `rein --resume` records its outcome as unknown')
    expect(stdout).toMatch(/no problems \(2 notes: it ends mid-turn; `rein --resume` closes it\)\.\n$/)
  })

  it('fails with one sentence for a missing session, an ambiguous prefix and a damaged file', async () => {
    const missing = rein('sessions', 'show', 'zzzz')
    expect(missing.status).toBe(1)
    expect(missing.stderr).toBe('rein: no session id starts with "zzzz"; run `rein sessions list --all` to see the ids.\n')

    const store = new JsonlStore(home)
    for (const id of ['dup00001', 'dup00002']) await (await Session.create(store, { cwd: project, id })).close()
    const ambiguous = rein('sessions', 'show', 'dup')
    expect(ambiguous.status).toBe(1)
    expect(ambiguous.stderr).toMatch(/^rein: "dup" matches 2 sessions/)

    const damaged = await Session.create(store, { cwd: project, id: 'damaged1' })
    appendTurn(damaged, 1, 'x')
    await damaged.close()
    const lines = (await readFile(damaged.path!, 'utf8')).split('\n')
    lines[2] = '{not json'
    await writeFile(damaged.path!, lines.join('\n'))
    const result = rein('sessions', 'show', 'damaged1')
    expect(result.status).toBe(1)
    expect(result.stderr).toBe(
      `rein: session file ${damaged.path} line 3 is not valid JSON; Rein left the file untouched, so repair or remove that line (or move the file aside) and try again.\n`,
    )
  })
})
