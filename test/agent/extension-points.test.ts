import { describe, expect, it } from 'vitest'
import type { BeforeRequestInfo, Extension, ExtensionContext, RequestFailedInfo } from '../../src/agent/extensions.js'
import type { PermissionAnswer, PermissionRequest } from '../../src/agent/types.js'
import type { SessionEvent } from '../../src/session/events.js'
import type { Session } from '../../src/session/session.js'
import { verifyEvents } from '../../src/session/verify.js'
import { harness, nextCommitted } from '../support/agent-harness.js'
import type { MockResponse } from '../support/mock-model.js'

const types = (events: readonly SessionEvent[]): string[] => events.map((e) => e.type).filter((t) => !t.startsWith('inbox/'))
const SERVER_ERROR: MockResponse = { error: { status: 500, body: { error: { message: 'Internal error' } } } }
const userTexts = (body: { messages: { role: string; content: unknown }[] }): string[] =>
  body.messages.filter((m) => m.role === 'user').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))

/** Shadows everything on the surface with one summary, the way a compaction extension would. */
function replaceSurface(session: Session, text: string): void {
  const surface = session.surface()
  session.append(
    'context/message',
    { id: `summary-${session.length}`, content: [{ type: 'text', text }], source: { kind: 'summary' } },
    { surfaceOp: { op: 'replace', start: surface[0].seq, end: surface[surface.length - 1].seq } },
  )
}

describe('beforeRequest', () => {
  it('is told the turn, the step and the prompt size in estimated tokens before the request is logged as sent', async () => {
    const seen: { info: BeforeRequestInfo; sentSoFar: number }[] = []
    let session: Session | undefined
    const probe: Extension = {
      name: 'probe',
      beforeRequest(info) {
        seen.push({ info, sentSoFar: session?.events.filter((e) => e.type === 'request/sent').length ?? -1 })
      },
    }
    const h = await harness({ script: [{ toolCalls: [{ name: 'echo', arguments: { text: 'a' } }] }, { text: 'ok' }], extensions: [probe] })
    session = h.session
    h.agent.followUp('go')
    await h.agent.whenIdle()
    const sent = h.session.events.filter((e): e is SessionEvent<'request/sent'> => e.type === 'request/sent')
    expect(seen.map((s) => [s.info.turn, s.info.step, s.sentSoFar])).toEqual([
      [1, 1, 0],
      [1, 2, 1],
    ])
    expect(seen.map((s) => s.info.promptTokens)).toEqual(sent.map((e) => Math.ceil(e.data.bytes / 4)))
    expect(seen.every((s) => s.info.signal instanceof AbortSignal)).toBe(true)
    await h.close()
  })

  it('when a listener replaced the surface, sessionStart runs with source compact and preStep runs once more before the request', async () => {
    const starts: string[] = []
    const preSteps: number[] = []
    let session: Session | undefined
    let replaced = false
    const extensions: Extension[] = [
      {
        name: 'reminder',
        sessionStart(context, source) {
          starts.push(source)
          if (source === 'compact') context.inject('Re-read TODO.md.', { kind: 'reminder' })
        },
        preStep(step, entering) {
          preSteps.push(entering.length)
          return { action: 'enter', messages: [...entering] }
        },
      },
      {
        name: 'replacer',
        beforeRequest() {
          if (replaced || !session) return
          replaced = true
          replaceSurface(session, 'Summary of what came before.')
        },
      },
    ]
    const h = await harness({ script: [{ text: 'ok' }], extensions })
    session = h.session
    h.agent.followUp('hello')
    expect((await h.agent.whenIdle())?.reason).toBe('completed')
    expect(starts).toEqual(['startup', 'compact'])
    // Once for the prompt, once more (with the injected reminder) after the replace.
    expect(preSteps).toEqual([1, 1])
    expect(userTexts(h.bodies()[0])).toEqual(['Summary of what came before.', 'Re-read TODO.md.'])
    const flow = types(h.session.events)
    expect(flow.indexOf('request/sent')).toBeGreaterThan(flow.lastIndexOf('context/message'))
    expect(verifyEvents(h.session.header, h.session.events)).toEqual([])
    await h.close()
  })

  it('does not run preStep again when no listener changed the surface', async () => {
    let preSteps = 0
    const h = await harness({
      script: [{ text: 'ok' }],
      extensions: [{ name: 'count', preStep: () => void preSteps++ }, { name: 'idle', beforeRequest: () => undefined }],
    })
    h.agent.followUp('hello')
    await h.agent.whenIdle()
    expect(preSteps).toBe(1)
    await h.close()
  })
})

describe('requestFailed', () => {
  it('is told each failure with its attempt number, and with no retry asked the loop retries by its own policy', async () => {
    const failures: Pick<RequestFailedInfo, 'turn' | 'step' | 'attempt'>[] = []
    const codes: string[] = []
    const h = await harness({
      script: [SERVER_ERROR, SERVER_ERROR, { text: 'ok' }],
      extensions: [
        {
          name: 'observer',
          requestFailed({ turn, step, attempt, error }) {
            failures.push({ turn, step, attempt })
            codes.push(error.code)
          },
        },
      ],
    })
    h.agent.followUp('hello')
    expect((await h.agent.whenIdle())?.reason).toBe('completed')
    expect(failures).toEqual([
      { turn: 1, step: 1, attempt: 1 },
      { turn: 1, step: 1, attempt: 2 },
    ])
    expect(codes).toEqual(['server', 'server'])
    expect(h.session.events.filter((e) => e.type === 'llm/retry')).toHaveLength(2)
    expect(h.session.events.filter((e) => e.type === 'request/sent')).toHaveLength(1)
    await h.close()
  })

  it("'retry' re-derives the request from the log and sends it at once, logged as a new request/sent and no llm/retry", async () => {
    let session: Session | undefined
    const h = await harness({
      script: [SERVER_ERROR, { text: 'ok' }],
      extensions: [
        {
          name: 'shrinker',
          requestFailed() {
            if (!session) return
            replaceSurface(session, 'Shorter.')
            return 'retry'
          },
        },
      ],
    })
    session = h.session
    h.agent.followUp('a long prompt')
    expect((await h.agent.whenIdle())?.reason).toBe('completed')
    expect(h.session.events.filter((e) => e.type === 'llm/retry')).toHaveLength(0)
    expect(h.session.events.filter((e) => e.type === 'request/sent')).toHaveLength(2)
    expect(userTexts(h.bodies()[1])).toEqual(['Shorter.'])
    expect(verifyEvents(h.session.header, h.session.events)).toEqual([])
    await h.close()
  })

  it('a requestFailed listener that throws ends the turn with an error naming it, leaving a whole log', async () => {
    const h = await harness({
      script: [SERVER_ERROR],
      extensions: [
        {
          name: 'broken',
          requestFailed() {
            throw new Error('boom')
          },
        },
      ],
    })
    h.agent.followUp('hello')
    const outcome = await h.agent.whenIdle()
    expect(outcome).toMatchObject({ reason: 'error', message: 'The requestFailed listener "broken" failed: boom' })
    expect(verifyEvents(h.session.header, h.session.events)).toEqual([])
    await h.close()
  })
})

describe('the extension context', () => {
  it('reads the cwd, the session, the model and the live permission mode, and lets an extension log its own audit events', async () => {
    let context: ExtensionContext | undefined
    const h = await harness({ script: [], extensions: [{ name: 'keeper', sessionStart: (c) => void (context = c) }] })
    expect(context).toMatchObject({ cwd: h.session.cwd, model: 'deepseek-v4-flash', permissionMode: 'default' })
    expect(context?.session.id).toBe(h.session.id)
    h.agent.setPermissionMode('plan')
    expect(context?.permissionMode).toBe('plan')
    context?.record('hook/invoked', { id: 'h1', event: 'Stop', handler: 'true', sourceFile: 'settings.json' })
    expect(h.session.last('hook/invoked')?.data.id).toBe('h1')
    await h.close()
  })

  it('refuses to record model input: that enters only through inject, steer and the entering messages', async () => {
    let context: ExtensionContext | undefined
    const h = await harness({ script: [], extensions: [{ name: 'keeper', sessionStart: (c) => void (context = c) }] })
    const attempt = () => context?.record('user/message', { id: 'x', content: [{ type: 'text', text: 'sneaky' }], source: { kind: 'ext' } })
    expect(attempt).toThrow('an extension cannot record user/message: model input enters through inject or steer.')
    expect(h.session.events.some((e) => e.type === 'user/message')).toBe(false)
    await h.close()
  })

  it('hands out the surface as a read-only view', async () => {
    let context: ExtensionContext | undefined
    const h = await harness({ script: [{ text: 'ok' }], extensions: [{ name: 'keeper', sessionStart: (c) => void (context = c) }] })
    h.agent.followUp('hello')
    await h.agent.whenIdle()
    const surface = context?.session.surface() ?? []
    expect(surface.map((e) => e.type)).toEqual(['user/message', 'assistant/message'])
    expect(() => (surface as SessionEvent[]).push(surface[0])).toThrow(TypeError)
    await h.close()
  })

  it('closes a question an extension asked when its turn is cancelled, and the extension reads a refusal', async () => {
    let answer: PermissionAnswer | undefined
    let asked: () => void = () => undefined
    const questionOpen = new Promise<void>((resolve) => (asked = resolve))
    const reviewer: Extension = {
      name: 'reviewer',
      async preTool(call, context) {
        answer = await context.ask({ call, reason: 'Approve the plan?' })
      },
    }
    const h = await harness({ script: [{ toolCalls: [{ name: 'echo', arguments: { text: 'a' } }] }, { text: 'ok' }], extensions: [reviewer] })
    let closedBySignal = false
    h.agent.permissionAsker = (_request, signal) =>
      new Promise<PermissionAnswer>((resolve) => {
        asked()
        signal.addEventListener('abort', () => {
          closedBySignal = true
          resolve({ outcome: 'deny', note: 'The request was cancelled.' })
        })
      })
    h.agent.followUp('go')
    await questionOpen
    h.agent.cancel()
    expect((await h.agent.whenIdle())?.reason).toBe('aborted')
    expect(closedBySignal).toBe(true)
    expect(answer).toEqual({ outcome: 'deny', note: 'The request was cancelled.' })
    await h.close()
  })
})

describe('permission through extension points', () => {
  const askWithRule: Extension = {
    name: 'policy',
    preTool: () => ({ action: 'ask', reason: 'echo needs approval', suggestedRule: 'echo' }),
  }

  it('offers the asking listener’s suggested rule to the front end, and tells listeners of the question before and the answer after', async () => {
    const order: string[] = []
    const answers: { request: PermissionRequest; answer: PermissionAnswer }[] = []
    const recorder: Extension = {
      name: 'recorder',
      permissionAsked: (request) => void order.push(`asked ${request.suggestedRule}`),
      permissionAnswered: (request, answer) => {
        order.push(`answered ${answer.outcome}`)
        answers.push({ request, answer })
      },
    }
    const h = await harness({ script: [{ toolCalls: [{ name: 'echo', arguments: { text: 'a' } }] }, { text: 'ok' }], extensions: [askWithRule, recorder] })
    h.agent.permissionAsker = async (request) => {
      order.push(`front end ${request.suggestedRule}`)
      return { outcome: 'allow-always', rule: request.suggestedRule }
    }
    h.agent.followUp('go')
    await h.agent.whenIdle()
    expect(order).toEqual(['asked echo', 'front end echo', 'answered allow-always'])
    expect(answers[0].request).toMatchObject({ reason: 'echo needs approval', suggestedRule: 'echo', call: { name: 'echo' } })
    expect(answers[0].answer).toEqual({ outcome: 'allow-always', rule: 'echo' })
    await h.close()
  })

  it('with no front end attached, listeners hear the question went unanswered and the model reads how the user can allow it', async () => {
    const answers: string[] = []
    let asked = 0
    const recorder: Extension = {
      name: 'recorder',
      permissionAsked: () => void asked++,
      permissionAnswered: (_request, answer) => void answers.push(answer.outcome),
    }
    const h = await harness({ script: [{ toolCalls: [{ name: 'echo', arguments: { text: 'a' } }] }, { text: 'ok' }], extensions: [askWithRule, recorder] })
    h.agent.followUp('go')
    await h.agent.whenIdle()
    expect(asked).toBe(0)
    expect(answers).toEqual(['unanswered'])
    const result = h.session.last('tool/result')
    expect(result?.data.isError).toBe(true)
    expect(JSON.stringify(result?.data.content)).toMatch(/needs permission and no one is attached/)
    await h.close()
  })

  it('a permission listener that throws is reported to the user and the call still gets its answer', async () => {
    const notices: string[] = []
    const broken: Extension = {
      name: 'broken',
      permissionAnswered() {
        throw new Error('disk full')
      },
    }
    const h = await harness({ script: [{ toolCalls: [{ name: 'echo', arguments: { text: 'a' } }] }, { text: 'ok' }], extensions: [askWithRule, broken] })
    h.agent.subscribe((e) => e.type === 'notice' && notices.push(e.message))
    h.agent.permissionAsker = async () => ({ outcome: 'allow-once' })
    h.agent.followUp('go')
    expect((await h.agent.whenIdle())?.reason).toBe('completed')
    expect(notices).toContain('The permissionAnswered listener "broken" failed: disk full')
    expect(h.session.last('tool/result')?.data.content).toEqual([{ type: 'text', text: 'echo: a' }])
    await h.close()
  })
})

describe('commands', () => {
  it('says so when no extension offers the command', async () => {
    const h = await harness({ script: [] })
    expect(await h.agent.compact()).toEqual({ outcome: 'nothing', message: 'The compact command is not available in this session.' })
    await h.close()
  })

  it('runs an extension command while idle, busy meanwhile, and cancel aborts it', async () => {
    let started!: () => void
    const running = new Promise<void>((resolve) => (started = resolve))
    const h = await harness({
      script: [],
      extensions: [
        {
          name: 'slow',
          commands: {
            wait: (input, signal) =>
              new Promise((resolve) => {
                started()
                signal.addEventListener('abort', () => resolve({ outcome: 'cancelled', message: `Stopped waiting for ${input.text}.` }))
              }),
          },
        },
      ],
    })
    const pending = h.agent.runCommand('wait', { text: 'Godot' })
    await running
    expect(h.agent.busy).toBe(true)
    h.agent.cancel()
    expect(await pending).toEqual({ outcome: 'cancelled', message: 'Stopped waiting for Godot.' })
    expect(h.agent.busy).toBe(false)
    await h.close()
  })

  it('refuses a command while a turn runs', async () => {
    const h = await harness({
      script: [{ toolCalls: [{ name: 'echo', arguments: { text: 'a' } }] }, { text: 'ok' }],
      extensions: [{ name: 'noop', commands: { tidy: async () => ({ outcome: 'done', message: 'Tidied.' }) } }],
    })
    h.agent.followUp('go')
    await nextCommitted(h.agent, 'request/sent')
    await expect(h.agent.runCommand('tidy')).rejects.toThrow('Cannot tidy while a turn runs; wait for it to end or cancel it.')
    await h.agent.whenIdle()
    expect(await h.agent.runCommand('tidy')).toEqual({ outcome: 'done', message: 'Tidied.' })
    await h.close()
  })
})
