import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AgentContext } from '@agentclientprotocol/sdk'
import { openAgentWithContext, type OpenedAgent } from '../../src/runtime/open.js'
import { runCatalogCommand } from '../../src/frontend/commands/one-shot.js'
import { commandsFor, findCommand } from '../../src/frontend/commands/catalog.js'
import { boundDiff } from '../../src/frontend/commands/review-diff.js'
import { printBuiltin } from '../../src/frontend/commands/print-command.js'
import { AcpSession } from '../../src/acp/session.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'

/** `/init` and `/review` (issue 33): commands whose work is a prompt they send as the user's message. */

let mock: MockModel
const opened: OpenedAgent[] = []

beforeAll(async () => {
  mock = await startMockModel({ script: [] })
})
afterAll(async () => {
  for (const o of opened) await o.agent.close('exit')
  await mock.close()
})

function place(): { cwd: string; home: string } {
  const root = mkdtempSync(join(tmpdir(), 'rein-prompt-cmd-'))
  const cwd = join(root, 'project')
  const home = join(root, 'home')
  mkdirSync(cwd, { recursive: true })
  mkdirSync(home, { recursive: true })
  return { cwd, home }
}

async function agentIn(cwd: string, home: string): Promise<OpenedAgent> {
  const env = { ...process.env, REIN_HOME: home, HOME: home, DEEPSEEK_API_KEY: 'sk-test', DEEPSEEK_BASE_URL: mock.url, NO_COLOR: '1' }
  const o = await openAgentWithContext({ cwd, home, env, permissionMode: 'bypass' })
  opened.push(o)
  return o
}

/** The user-role texts of the newest request the mock received, joined (the prompt, and the context beside it). */
function lastUserText(): string {
  const messages = (mock.requests.at(-1)?.body as { messages?: { role: string; content: unknown }[] }).messages ?? []
  return messages
    .filter((m) => m.role === 'user')
    .map((m) => (typeof m.content === 'string' ? m.content : (m.content as { text?: string }[]).map((b) => b.text ?? '').join('')))
    .join('\n')
}

/** The text of the newest prompt in the agent's log. */
function lastPrompt(o: OpenedAgent): string {
  const message = o.agent.session.events.filter((e) => e.type === 'user/message').at(-1)
  return message?.type === 'user/message' ? message.data.content.map((b) => (b.type === 'text' ? b.text : '')).join('') : ''
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false', ...args], { cwd, stdio: 'pipe' }).toString()

describe('/init', () => {
  it('sends Rein\'s prompt as the user\'s message; the log keeps the command as its source', async () => {
    const { cwd, home } = place()
    const o = await agentIn(cwd, home)
    const before = mock.requests.length
    const ran = await runCatalogCommand(o.agent, 'rpc', 'init', '')
    expect(ran).toEqual({ name: 'init', replies: [{ text: 'Asked the model to write AGENTS.md; it can edit files only as the permission mode allows.' }] })
    await o.agent.whenIdle()
    expect(mock.requests.length).toBe(before + 1)
    const text = lastUserText()
    expect(text).toContain('Write an AGENTS.md at the root of this repository')
    expect(text).toContain('how to run the tests')
    expect(text).not.toContain('CLAUDE.md')
    const message = o.agent.session.events.filter((e) => e.type === 'user/message').at(-1)
    expect(message?.data).toMatchObject({ source: { kind: 'user', command: 'init', builtin: true } })
  })

  it('names a CLAUDE.md when there is no AGENTS.md, and keeps an existing AGENTS.md\'s content; notes follow', async () => {
    const { cwd, home } = place()
    writeFileSync(join(cwd, 'CLAUDE.md'), '# Notes for Claude\n')
    const o = await agentIn(cwd, home)
    await runCatalogCommand(o.agent, 'web', 'init', '')
    await o.agent.whenIdle()
    expect(lastUserText()).toContain('There is a CLAUDE.md (instructions written for Claude Code) and no AGENTS.md')
    writeFileSync(join(cwd, 'AGENTS.md'), '# Agents\n')
    await runCatalogCommand(o.agent, 'web', 'init', 'mention the docs folder')
    await o.agent.whenIdle()
    const text = lastPrompt(o)
    expect(lastUserText()).toContain(text)
    expect(text).toContain('This repository already has an AGENTS.md')
    expect(text).toContain('keep every part that is still true')
    expect(text).not.toContain('There is a CLAUDE.md')
    expect(text.trimEnd().endsWith('The user adds: mention the docs folder')).toBe(true)
  })

  it('over ACP the prompt request is answered when the turn /init started has ended', async () => {
    const { cwd, home } = place()
    const o = await agentIn(cwd, home)
    const updates: Record<string, unknown>[] = []
    const client = { notify: async (_method: string, params: { update: Record<string, unknown> }) => void updates.push(params.update) } as unknown as AgentContext
    const session = new AcpSession(o.agent, client, { images: false, notices: false, log: () => {} })
    const before = mock.requests.length
    mock.push({ text: 'Wrote AGENTS.md.' })
    expect(await session.prompt([{ type: 'text', text: '/init' }])).toEqual({ stopReason: 'end_turn' })
    expect(mock.requests.length).toBe(before + 1)
    // The model's answer reached the editor before the request was answered.
    expect(updates.some((u) => u.sessionUpdate === 'agent_message_chunk' && JSON.stringify(u).includes('Wrote AGENTS.md.'))).toBe(true)
  })
})

describe('/review', () => {
  it('outside a git repository, and with nothing changed, says so in one sentence and sends nothing', async () => {
    const { cwd, home } = place()
    const o = await agentIn(cwd, home)
    const before = mock.requests.length
    expect(await runCatalogCommand(o.agent, 'rpc', 'review', '')).toEqual({ refused: `There is nothing to review: ${cwd} is not in a git repository.` })
    git(cwd, 'init', '-q')
    writeFileSync(join(cwd, 'a.txt'), 'one\n')
    git(cwd, 'add', 'a.txt')
    git(cwd, 'commit', '-qm', 'first')
    expect(await runCatalogCommand(o.agent, 'rpc', 'review', '')).toEqual({ refused: 'There is nothing to review: no changes against HEAD.' })
    expect(await runCatalogCommand(o.agent, 'rpc', 'review', 'origin/nope')).toEqual({ refused: 'There is no commit origin/nope in this repository; try /review main or /review HEAD~1.' })
    // An option in place of a ref reaches git as nothing but a failed lookup.
    expect(await runCatalogCommand(o.agent, 'rpc', 'review', '--output=/tmp/x')).toEqual({ refused: 'There is no commit --output=/tmp/x in this repository; try /review main or /review HEAD~1.' })
    expect(mock.requests.length).toBe(before)
  })

  it('sends staged, unstaged and untracked changes with the review prompt, leaving out what a Read deny rule covers', async () => {
    const { cwd, home } = place()
    git(cwd, 'init', '-q')
    writeFileSync(join(cwd, 'app.ts'), 'export const a = 1\n')
    writeFileSync(join(cwd, 'secret.env'), 'TOKEN=old\n')
    git(cwd, 'add', '.')
    git(cwd, 'commit', '-qm', 'first')
    writeFileSync(join(cwd, 'app.ts'), 'export const a = 2\n')
    writeFileSync(join(cwd, 'staged.ts'), 'export const b = 3\n')
    git(cwd, 'add', 'staged.ts')
    writeFileSync(join(cwd, 'notes.md'), 'untracked notes\n')
    writeFileSync(join(cwd, 'secret.env'), 'TOKEN=hunter2-never-sent\n')
    // A name that would clear the screen, covered by the deny rule too.
    writeFileSync(join(cwd, '\u001b[2Jx.env'), 'TOKEN=also-never-sent\n')
    mkdirSync(join(cwd, '.rein'))
    writeFileSync(join(cwd, '.rein', 'settings.json'), JSON.stringify({ permissions: { deny: ['Read(./*.env)'] } }))
    writeFileSync(join(cwd, '.gitignore'), '.rein/\n')
    const o = await agentIn(cwd, home)
    const ran = await runCatalogCommand(o.agent, 'rpc', 'review', 'error handling')
    expect(ran).toEqual({
      name: 'review',
      replies: [{ text: 'Asked the model to review the changes against HEAD (left out: secret.env (a Read deny rule covers it); x.env (a Read deny rule covers it)).' }],
    })
    await o.agent.whenIdle()
    const text = lastUserText()
    expect(text).toContain('Review these changes to the repository, against HEAD (staged and unstaged changes).')
    expect(text).toContain('The user asks you to focus on: error handling')
    expect(text).toContain('-export const a = 1\n+export const a = 2')
    expect(text).toContain('+export const b = 3')
    expect(text).toContain('- notes.md (16 B)')
    expect(text).not.toContain('hunter2')
    expect(text).not.toContain('also-never-sent')
    const message = o.agent.session.events.filter((e) => e.type === 'user/message').at(-1)
    expect(message?.data).toMatchObject({ source: { kind: 'user', command: 'review', arguments: 'error handling' } })
  })

  it('/review <ref> reviews from where the ref and HEAD part, and a diff past the cap names what was cut', async () => {
    const { cwd, home } = place()
    git(cwd, 'init', '-q', '-b', 'main')
    writeFileSync(join(cwd, 'base.txt'), 'base\n')
    git(cwd, 'add', '.')
    git(cwd, 'commit', '-qm', 'base')
    git(cwd, 'checkout', '-qb', 'feature')
    writeFileSync(join(cwd, 'small.txt'), 'small change\n')
    writeFileSync(join(cwd, 'zz-big.txt'), `${'x'.repeat(100)}\n`.repeat(2000))
    git(cwd, 'add', '.')
    git(cwd, 'commit', '-qm', 'feature work')
    const o = await agentIn(cwd, home)
    const ran = await runCatalogCommand(o.agent, 'rpc', 'review', 'main')
    expect(ran).toMatchObject({ name: 'review', replies: [{ text: expect.stringMatching(/^Asked the model to review the changes against main \(left out: the changes to zz-big\.txt \(\d+ KB\)\)\.$/) }] })
    await o.agent.whenIdle()
    const text = lastUserText()
    expect(text).toMatch(/against main \(from [0-9a-f]{12}, where it and HEAD part\)/)
    expect(text).toContain('+small change')
    expect(text).toContain('Not included here (the diff is cut at 100 KB')
    expect(text).not.toContain('x'.repeat(100))
  })

  it('cuts a diff at whole files, and a first file larger than the cap at a line', () => {
    const file = (name: string, lines: number) => `diff --git a/${name} b/${name}\n${'+line\n'.repeat(lines)}`
    expect(boundDiff(file('a', 2) + file('b', 2), 1000)).toEqual({ text: file('a', 2) + file('b', 2), cut: [] })
    const two = boundDiff(file('a', 2) + file('b', 500), 100)
    expect(two).toEqual({ text: file('a', 2), cut: ['the changes to b (3 KB)'] })
    const one = boundDiff(file('big', 100), 50)
    expect(one.text.endsWith("[the rest of this file's diff was cut]\n")).toBe(true)
    expect(one.cut).toEqual(['the end of the changes to big (623 B in all)'])
  })

  it("a review.md of the user's or the workspace's takes the built-in's place there, and only there", () => {
    const { cwd } = place()
    mkdirSync(join(cwd, '.claude', 'commands'), { recursive: true })
    writeFileSync(join(cwd, '.claude', 'commands', 'review.md'), 'Review $1.\n')
    writeFileSync(join(cwd, '.claude', 'commands', 'init.md'), 'My own init.\n')
    expect(findCommand('review', 'print', cwd)).toBeUndefined()
    expect(printBuiltin('/review src/a.ts', cwd)).toBeUndefined()
    expect(commandsFor('tui', cwd).map((c) => c.name)).not.toContain('review')
    expect(printBuiltin('/init', cwd)).toBeUndefined()
    // A command that acts, not prompts, never yields.
    writeFileSync(join(cwd, '.claude', 'commands', 'model.md'), 'Not a model switch.\n')
    expect(printBuiltin('/model', cwd)).toEqual({ name: 'model', arg: '' })
    const { cwd: elsewhere } = place()
    expect(printBuiltin('/review', elsewhere)).toEqual({ name: 'review', arg: '' })
  })
})
