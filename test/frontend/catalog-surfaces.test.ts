import { PassThrough } from 'node:stream'
import { createInterface } from 'node:readline'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AgentContext } from '@agentclientprotocol/sdk'
import { openAgentWithContext, type OpenedAgent } from '../../src/runtime/open.js'
import { addCommand, commandsFor } from '../../src/frontend/commands/catalog.js'
import type { BuiltinCommand, Surface } from '../../src/frontend/commands/types.js'
import { commandChoices } from '../../src/cli/tui/slash-commands.js'
import { runSlash, type SlashContext } from '../../src/cli/tui/slash-run.js'
import { acpCommands, runCommand as runAcpCommand } from '../../src/acp/slash-commands.js'
import { AcpSession } from '../../src/acp/session.js'
import { runRpc } from '../../src/cli/rpc/rpc-mode.js'
import { startWebServer, type WebServer } from '../../src/web/server.js'
import { cliEnv, sandbox } from '../support/cli.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'

/**
 * Issue 30's done-when: a built-in command is one entry in one catalog. The test adds one entry and finds it offered
 * and running on the terminal UI, ACP, RPC and the web, and checks that no surface keeps a list of its own.
 */

const ping: BuiltinCommand = {
  name: 'ping-test',
  argument: { hint: '[word]' },
  help: 'Answer pong with the word',
  surfaces: ['tui', 'acp', 'rpc', 'web'],
  run: (ctx, arg) => ctx.reply(`pong ${arg || '(nothing)'} from ${ctx.surface}`),
}

let box: ReturnType<typeof sandbox>
let mock: MockModel
let opened: OpenedAgent
let removePing: () => void
const names = (surface: Surface) => commandsFor(surface).map((c) => c.name)

beforeAll(async () => {
  box = sandbox()
  mock = await startMockModel({ script: [] })
  removePing = addCommand(ping)
  opened = await openAgentWithContext({ cwd: box.cwd, home: box.home, env: cliEnv({ url: mock.url, home: box.home }) })
})
afterAll(async () => {
  removePing()
  await opened.agent.close('exit')
  await mock.close()
})

function tuiContext(said: string[], shown: { title: string; text: string }[]): SlashContext {
  return {
    agent: opened.agent,
    ledger: { byTurn: () => [], subagents: () => undefined } as unknown as SlashContext['ledger'],
    services: {} as SlashContext['services'],
    events: () => opened.agent.session.events,
    sessionId: () => opened.agent.session.id,
    title: () => undefined,
    say: (text) => void said.push(text),
    show: (title, text) => void shown.push({ title, text }),
    pick: () => {},
    exit: () => {},
    refresh: () => {},
  }
}

describe('one catalog entry reaches every surface', () => {
  it('the terminal UI completes it, lists it in /help and runs it', async () => {
    expect(commandChoices(box.cwd).map((c) => c.name)).toEqual(names('tui'))
    expect(commandChoices(box.cwd)).toContainEqual({ name: 'ping-test', hint: '[word]' })
    const said: string[] = []
    const shown: { title: string; text: string }[] = []
    await runSlash(tuiContext(said, shown), 'ping-test', 'hello')
    expect(said).toEqual(['pong hello from tui'])
    await runSlash(tuiContext(said, shown), 'help', '')
    const help = shown.at(-1)!.text
    expect(help).toMatch(/^\/ping-test \[word\]\s+Answer pong with the word$/m)
    for (const name of names('tui')) expect(help).toContain(`/${name}`)
  })

  it('ACP announces it in available_commands_update and answers it without the model', async () => {
    const updates: Record<string, unknown>[] = []
    // A stand-in for the SDK's connection: the session only notifies it.
    const client = { notify: async (_method: string, params: { update: Record<string, unknown> }) => void updates.push(params.update) } as unknown as AgentContext
    const session = new AcpSession(opened.agent, client, { images: false, notices: false, log: () => {} })
    await session.announceCommands()
    const announced = updates.find((u) => u.sessionUpdate === 'available_commands_update') as { availableCommands: { name: string; description: string }[] }
    expect(announced.availableCommands.map((c) => c.name)).toEqual(names('acp'))
    expect(announced.availableCommands).toContainEqual({ name: 'ping-test', description: 'Answer pong with the word', input: { hint: '[word]' } })
    const requests = mock.requests.length
    expect(await session.prompt([{ type: 'text', text: '/ping-test there' }])).toEqual({ stopReason: 'end_turn' })
    expect(updates.at(-1)).toEqual({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'pong there from acp' } })
    expect(mock.requests.length).toBe(requests)
  })

  it('RPC lists it in get_commands and runs it with run_command; an unknown name is refused in one sentence', async () => {
    const input = new PassThrough()
    const output = new PassThrough()
    const lines: Record<string, unknown>[] = []
    createInterface({ input: output }).on('line', (line) => lines.push(JSON.parse(line) as Record<string, unknown>))
    const done = runRpc({ cwd: box.cwd, home: box.home, env: cliEnv({ url: mock.url, home: box.home }), input, output })
    for (const command of [
      { id: 1, type: 'get_commands' },
      { id: 2, type: 'run_command', name: 'ping-test', args: 'rpc-word' },
      { id: 3, type: 'run_command', name: 'pign-test' },
      { id: 4, type: 'shutdown' },
    ]) input.write(`${JSON.stringify(command)}\n`)
    expect(await done).toBe(0)
    const response = (id: number) => lines.find((l) => l.type === 'response' && l.id === id) as Record<string, unknown> & { data: Record<string, unknown> }
    const builtins = response(1).data.builtins as { name: string; hint?: string; help: string }[]
    expect(builtins.map((b) => b.name)).toEqual(names('rpc'))
    expect(builtins).toContainEqual({ name: 'ping-test', aliases: [], hint: '[word]', help: 'Answer pong with the word' })
    expect(response(2)).toMatchObject({ ok: true, data: { name: 'ping-test', replies: [{ text: 'pong rpc-word from rpc' }] } })
    expect(response(3)).toMatchObject({ ok: false, error: 'There is no /pign-test; did you mean /ping-test?' })
  })

  describe('the web', () => {
    let web: WebServer
    let id: string
    const call = (path: string, init: { method?: string; body?: string } = {}) =>
      fetch(`${web.origin}${path}`, {
        method: init.method ?? 'GET',
        headers: { Authorization: `Bearer ${web.token}`, Origin: web.origin, 'Content-Type': 'application/json' },
        ...(init.body !== undefined ? { body: init.body } : {}),
      })

    beforeAll(async () => {
      web = await startWebServer({ root: box.cwd, home: box.home, port: 0, agent: { env: cliEnv({ url: mock.url, home: box.home }) } })
      const started = await call('/api/sessions', { method: 'POST', body: JSON.stringify({ cwd: box.cwd }) })
      expect(started.status).toBe(201)
      id = ((await started.json()) as { id: string }).id
    })
    afterAll(() => web.close())

    it('lists it and runs it', async () => {
      const listing = (await (await call(`/api/sessions/${id}/commands`)).json()) as { builtins: { name: string }[] }
      expect(listing.builtins.map((b) => b.name)).toEqual(names('web'))
      const ran = await call(`/api/sessions/${id}/commands`, { method: 'POST', body: JSON.stringify({ name: 'ping-test', args: 'web-word' }) })
      expect(ran.status).toBe(200)
      expect(await ran.json()).toEqual({ name: 'ping-test', replies: [{ text: 'pong web-word from web' }] })
    })

    it('refuses an unknown command, a bad argument, a bad body and a retired model, each in one sentence, changing nothing', async () => {
      const post = async (body: string) => {
        const response = await call(`/api/sessions/${id}/commands`, { method: 'POST', body })
        return { status: response.status, error: ((await response.json()) as { error: string }).error }
      }
      expect(await post(JSON.stringify({ name: 'nosuch' }))).toEqual({ status: 400, error: 'There is no /nosuch; /help lists the commands.' })
      expect(await post(JSON.stringify({ name: 'effort', args: 'extreme' }))).toEqual({ status: 400, error: 'Effort must be one of off, low, high, max; try /effort high.' })
      expect(await post(JSON.stringify({ name: 'quit' }))).toEqual({ status: 400, error: '/quit is not offered here; it works in the terminal UI.' })
      expect(await post('{"name":')).toEqual({ status: 400, error: 'The request body is not JSON.' })
      expect(await post(JSON.stringify({ name: 'ping-test', extra: 1 }))).toMatchObject({ status: 400, error: expect.stringMatching(/^Invalid request: /) })
      const effort = await call(`/api/sessions/${id}/commands`, { method: 'POST', body: JSON.stringify({ name: 'effort' }) })
      expect(((await effort.json()) as { replies: { text: string }[] }).replies[0].text).toMatch(/^Effort is (off|low|high|max);/)
      expect(await post(JSON.stringify({ name: 'model', args: 'deepseek-chat' }))).toMatchObject({ status: 400, error: expect.stringMatching(/^DeepSeek retired deepseek-chat on .*; use one of deepseek-flash, /) })
    })

    it('still checks the token and the origin, and refuses an oversized body', async () => {
      const noToken = await fetch(`${web.origin}/api/sessions/${id}/commands`)
      expect(noToken.status).toBe(401)
      const foreign = await fetch(`${web.origin}/api/sessions/${id}/commands`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${web.token}`, Origin: 'http://evil.example', 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'ping-test' }),
      })
      expect(foreign.status).toBe(403)
      // Last: the server stops reading an oversized body and closes that connection.
      const big = await call(`/api/sessions/${id}/commands`, { method: 'POST', body: JSON.stringify({ name: 'ping-test', args: 'x'.repeat(200_000) }) })
      expect({ status: big.status, body: await big.json() }).toEqual({ status: 413, body: { error: 'Refused: a command request may be at most 64 KB.' } })
    })
  })
})

describe('/model refuses a retired id and a typo at once, on every surface (issue 33 item 8)', () => {
  const retired = /^DeepSeek retired deepseek-reasoner on [\d-]+; use one of deepseek-flash, deepseek-v4-pro.*\.$/
  const typo = /^There is no model deepseek-flahs; use one of deepseek-flash, /

  it('in the terminal UI and ACP the model stays as it was', async () => {
    const before = opened.agent.config.model
    const said: string[] = []
    await runSlash(tuiContext(said, []), 'model', 'deepseek-reasoner')
    await runSlash(tuiContext(said, []), 'model', 'deepseek-flahs')
    expect(said[0]).toMatch(retired)
    expect(said[1]).toMatch(typo)
    expect(await runAcpCommand(opened.agent, { name: 'model', arg: 'deepseek-reasoner' })).toMatch(retired)
    expect(opened.agent.config.model).toBe(before)
  })

  it('in RPC the command fails with the sentence', async () => {
    const input = new PassThrough()
    const output = new PassThrough()
    const lines: Record<string, unknown>[] = []
    createInterface({ input: output }).on('line', (line) => lines.push(JSON.parse(line) as Record<string, unknown>))
    const done = runRpc({ cwd: box.cwd, home: box.home, env: cliEnv({ url: mock.url, home: box.home }), input, output })
    input.write(`${JSON.stringify({ id: 1, type: 'run_command', name: 'model', args: 'deepseek-flahs' })}\n${JSON.stringify({ id: 2, type: 'shutdown' })}\n`)
    expect(await done).toBe(0)
    const response = lines.find((l) => l.type === 'response' && l.id === 1) as { ok: boolean; error: string }
    expect(response.ok).toBe(false)
    expect(response.error).toMatch(typo)
  })
})

describe('every surface lists exactly the catalog filtered by surface', () => {
  it('no surface keeps a hand-made list', () => {
    expect(commandChoices(box.cwd).map((c) => c.name)).toEqual(names('tui'))
    expect(acpCommands(box.cwd).map((c) => c.name)).toEqual(names('acp'))
    // /model exists once, with one wording, wherever it is offered.
    const model = commandsFor('tui').filter((c) => c.name === 'model')
    expect(model).toHaveLength(1)
    for (const surface of ['acp', 'rpc', 'web', 'print'] as const) expect(commandsFor(surface).find((c) => c.name === 'model')).toBe(model[0])
  })
})
