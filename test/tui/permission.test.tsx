import { cleanup, render } from 'ink-testing-library'
import { afterEach, describe, expect, it } from 'vitest'
import type { PermissionAnswer, PermissionRequest } from '../../src/agent/types.js'
import { App } from '../../src/cli/tui/App.js'
import { stripAnsi } from '../../src/cli/tui/ansi.js'
import { FakeAgent, fakeServices, settle, waitForFrame } from './support/fake-agent.js'

afterEach(() => cleanup())

const request: PermissionRequest = {
  call: { turn: 1, step: 1, callId: 'c1', name: 'bash', arguments: '{"command":"npm test"}', input: { command: 'npm test' } },
  reason: 'bash runs commands; this one is not allowed by a rule.',
  suggestedRule: 'Bash(npm test)',
}

async function ask(keys: string[], services = fakeServices()): Promise<{ answer: PermissionAnswer; screen: string; services: typeof services }> {
  const agent = new FakeAgent()
  const ui = render(<App agent={agent.api} services={services} onExit={() => {}} />)
  await settle()
  const asker = agent.permissionAsker
  if (!asker) throw new Error('the UI did not attach a permission asker')
  const pending = asker(request, new AbortController().signal)
  const screen = await waitForFrame(ui, 'Permission needed')
  for (const key of keys) {
    ui.stdin.write(key)
    await settle(10)
  }
  return { answer: await pending, screen, services }
}

describe('the permission prompt', () => {
  it('shows the tool, its target, the reason and the four choices', async () => {
    const { screen } = await ask(['1'])
    expect(screen).toContain('Permission needed: bash npm test')
    expect(screen).toContain('not allowed by a rule')
    expect(screen).toContain('1. Allow once')
    expect(screen).toContain('2. Allow always (Bash(npm test))')
    expect(screen).toContain('3. Deny')
    expect(screen).toContain('4. Deny with a note to the model')
  })

  it('allows once', async () => {
    const { answer, services } = await ask(['1'])
    expect(answer).toEqual({ outcome: 'allow-once' })
    expect(services.rules).toEqual([])
  })

  it('allows always and saves the rule to the local settings', async () => {
    const { answer, services } = await ask(['2'])
    expect(answer).toEqual({ outcome: 'allow-always', rule: 'Bash(npm test)' })
    expect(services.rules).toEqual(['Bash(npm test)'])
  })

  it('still allows the call when the rule cannot be saved, and says why', async () => {
    const services = fakeServices({
      addLocalAllowRule: () => {
        throw new Error('settings.local.json is not valid JSON; fix or delete it.')
      },
    })
    const { answer } = await ask(['2'], services)
    expect(answer.outcome).toBe('allow-always')
  })

  it('denies with its digit, with Esc, and with arrows and Enter', async () => {
    expect((await ask(['3'])).answer).toEqual({ outcome: 'deny' })
    expect((await ask(['\x1b'])).answer).toEqual({ outcome: 'deny' })
    expect((await ask(['\x1b[B', '\x1b[B', '\r'])).answer).toEqual({ outcome: 'deny' })
  })

  it('denies with a note the model reads', async () => {
    const { answer } = await ask(['4', 'u', 's', 'e', ' ', 'p', 'n', 'p', 'm', '\r'])
    expect(answer).toEqual({ outcome: 'deny', note: 'use pnpm' })
  })

  it('goes away when the turn is cancelled while it waits', async () => {
    const agent = new FakeAgent()
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    const abort = new AbortController()
    const pending = agent.permissionAsker!(request, abort.signal)
    await waitForFrame(ui, 'Permission needed')
    abort.abort()
    expect((await pending).outcome).toBe('deny')
    await settle()
    expect(stripAnsi(ui.lastFrame() ?? '')).not.toContain('Permission needed')
  })

  it('offers no allow-always when there is no rule to add', async () => {
    const agent = new FakeAgent()
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    const pending = agent.permissionAsker!({ ...request, suggestedRule: undefined }, new AbortController().signal)
    const screen = await waitForFrame(ui, 'Permission needed')
    expect(screen).not.toContain('Allow always')
    ui.stdin.write('2')
    expect(await pending).toEqual({ outcome: 'deny' })
  })

  it('takes typed words, y and digits included, as editor text and answers nothing', async () => {
    const agent = new FakeAgent()
    agent.busy = true
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    let answered: PermissionAnswer | undefined
    void agent.permissionAsker!(request, new AbortController().signal).then((a) => (answered = a))
    await waitForFrame(ui, 'Permission needed')
    for (const key of 'yes 1 2 y n') {
      ui.stdin.write(key)
      await settle(5)
    }
    const frame = await waitForFrame(ui, 'yes 1 2 y n')
    expect(frame).toContain('Permission needed')
    expect(answered).toBeUndefined()
    ui.stdin.write('\r')
    await settle()
    expect(agent.calls).toEqual([expect.objectContaining({ verb: 'steer', text: 'yes 1 2 y n' })])
    expect(answered).toBeUndefined()
    expect(stripAnsi(ui.lastFrame() ?? '')).toContain('Permission needed')
  })

  it('keeps a fast chunk of text whole as steering, and a digit inside it answers nothing', async () => {
    const agent = new FakeAgent()
    agent.busy = true
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    let answered: PermissionAnswer | undefined
    void agent.permissionAsker!(request, new AbortController().signal).then((a) => (answered = a))
    await waitForFrame(ui, 'Permission needed')
    ui.stdin.write('1')
    ui.stdin.write('y')
    await settle()
    expect(answered).toEqual({ outcome: 'allow-once' })
    const second = agent.permissionAsker!({ ...request, call: { ...request.call, callId: 'c2' } }, new AbortController().signal)
    await waitForFrame(ui, 'Permission needed')
    ui.stdin.write('2 more things: use yarn\r')
    await settle()
    expect(agent.calls.map((c) => c.text)).toEqual(['y2 more things: use yarn'])
    ui.stdin.write('3')
    await settle(450)
    expect(stripAnsi(ui.lastFrame() ?? '')).toContain('Permission needed')
    ui.stdin.write('\x15')
    await settle(450)
    ui.stdin.write('3')
    expect(await second).toEqual({ outcome: 'deny' })
  })

  it('answers with Enter on the highlighted choice only while the editor is empty', async () => {
    const agent = new FakeAgent()
    agent.busy = true
    const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} />)
    await settle()
    const pending = agent.permissionAsker!(request, new AbortController().signal)
    await waitForFrame(ui, 'Permission needed')
    ui.stdin.write('\x1b[B')
    await settle()
    ui.stdin.write('\x1b[B')
    await settle()
    ui.stdin.write('\r')
    expect(await pending).toEqual({ outcome: 'deny' })
    expect(agent.calls).toEqual([])
  })
})
