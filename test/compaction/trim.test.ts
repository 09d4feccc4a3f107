import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Compactor } from '../../src/compaction/compactor.js'
import { estimateTokens } from '../../src/compaction/units.js'
import { Session } from '../../src/session/session.js'
import { MemoryStore } from '../../src/store/memory-store.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { appendToolStep, chatAdapter, eventsOf, SUMMARY_REQUEST } from './support.js'

const WINDOW = 10_000
const settings = { ratio: 0.8, keepRatio: 0.15, trimAboveTokens: 2_000, trimKeepChars: 1_500 }
/** ~10,000 tokens: far over the trim size, with a recognisable head and tail. */
const HUGE = `HEAD-MARK ${'x'.repeat(40_000)} TAIL-MARK`

let mock: MockModel
beforeEach(async () => {
  mock = await startMockModel({ script: [{ match: SUMMARY_REQUEST, text: 'Short summary.', repeat: true }] })
})
afterEach(async () => {
  await mock.close()
})

/**
 * A session whose oldest step produced one huge output (`old-0`) and whose newest step produced a long one
 * (`new-0`, ~2,500 tokens, more than the 1,500 kept verbatim), with a header logged as after a first request.
 */
async function sessionWithLongOutputs(oldResults: string[] = [HUGE]): Promise<Session> {
  const session = await Session.create(new MemoryStore(), { cwd: process.cwd() })
  session.append('turn/start', { turn: 1 })
  session.append('user/message', { id: 'u', content: [{ type: 'text', text: 'Read the logs.' }], source: { kind: 'user' } })
  session.append('request/header', { reason: 'initial', config: { model: 'deepseek-v4-flash', effort: 'high' }, system: 'sys', tools: [], wire: 'chat' })
  appendToolStep(session, 1, 1, 'old', oldResults)
  appendToolStep(session, 1, 2, 'mid', ['short output'])
  appendToolStep(session, 1, 3, 'new', ['y'.repeat(10_000)])
  return session
}

function compactor(session: Session): Compactor {
  return new Compactor({ session, adapter: chatAdapter(mock.url), contextWindow: () => WINDOW, settings })
}

const at = (promptTokens?: number) => ({ turn: 1, step: 4, signal: new AbortController().signal, promptTokens })
const promptOf = (session: Session): number => session.messages().reduce((n, m) => n + estimateTokens(m), 0)

describe('trimming old tool output', () => {
  it('replaces an old long result by its head and tail under the same call id, as a replace of exactly that seq', async () => {
    const session = await sessionWithLongOutputs()
    const original = eventsOf(session, 'tool/result').find((e) => e.data.callId === 'old-0')!
    const outcome = await compactor(session).compact('auto', at(promptOf(session)))

    expect(outcome.outcome).toBe('trimmed')
    expect(outcome.message).toMatch(/^Trimmed 1 old tool output, saving about [\d,]+ tokens\.$/)
    const replacement = session.events.at(-2)
    if (replacement?.type !== 'tool/result') throw new Error(`the event before the end is ${replacement?.type}, not the replacing tool/result`)
    expect(replacement.surfaceOp).toEqual({ op: 'replace', start: original.seq, end: original.seq })
    expect(replacement.data.callId).toBe('old-0')
    const text = (replacement.data.content[0] as { text: string }).text
    expect(text.startsWith('HEAD-MARK')).toBe(true)
    expect(text.endsWith('TAIL-MARK')).toBe(true)
    expect(text).toMatch(/characters of this old tool output were trimmed/)
    expect(text.length).toBeLessThan(3_200)
    expect(mock.requests).toHaveLength(0)
  })

  it('brackets the trim in compaction/start (mode trim) and compaction/end, keeps the original in the log and its place on the surface', async () => {
    const session = await sessionWithLongOutputs()
    const before = session.surface().map((e) => (e.type === 'tool/result' ? e.data.callId : e.type))
    await compactor(session).compact('auto', at(promptOf(session)))

    const start = eventsOf(session, 'compaction/start')
    expect(start).toHaveLength(1)
    expect(start[0].data).toMatchObject({ trigger: 'auto', mode: 'trim' })
    expect(eventsOf(session, 'compaction/end')[0].data).toMatchObject({ id: start[0].data.id, outcome: 'replaced' })
    expect(session.surface().map((e) => (e.type === 'tool/result' ? e.data.callId : e.type))).toEqual(before)
    expect(eventsOf(session, 'tool/result').filter((e) => e.data.callId === 'old-0')).toHaveLength(2)
    expect(JSON.stringify(session.messages())).not.toContain('x'.repeat(5_000))
  })

  it('does not trim recent results, even long ones', async () => {
    const session = await sessionWithLongOutputs()
    await compactor(session).compact('auto', at(promptOf(session)))
    const newest = session.surface().filter((e) => e.type === 'tool/result' && e.data.callId === 'new-0')
    expect(newest).toHaveLength(1)
    expect(newest[0].surfaceOp ?? 'append').toBe('append')
  })

  it('summarizes instead when trimming alone would not bring the prompt under the threshold', async () => {
    const session = await sessionWithLongOutputs()
    const outcome = await compactor(session).compact('auto', at(promptOf(session) + 20_000))
    expect(outcome.outcome).toBe('replaced')
    expect(mock.requests).toHaveLength(1)
    expect(eventsOf(session, 'tool/result').filter((e) => typeof e.surfaceOp === 'object')).toHaveLength(0)
    expect(eventsOf(session, 'compaction/start')[0].data.mode).toBe('summary')
  })

  it('summarizes instead when no old result is over the trim size', async () => {
    const session = await sessionWithLongOutputs(['z'.repeat(7_000), 'z'.repeat(7_000)])
    const outcome = await compactor(session).compact('auto', at(promptOf(session)))
    expect(outcome.outcome).toBe('replaced')
    expect(eventsOf(session, 'compaction/start')[0].data.mode).toBe('summary')
  })

  it('never trims on a manual compaction, which always summarizes', async () => {
    const session = await sessionWithLongOutputs()
    const outcome = await compactor(session).compact('manual', at(promptOf(session)))
    expect(outcome.outcome).toBe('replaced')
    expect(eventsOf(session, 'tool/result').filter((e) => typeof e.surfaceOp === 'object')).toHaveLength(0)
  })

  it('leaves results that carry images alone', async () => {
    const session = await Session.create(new MemoryStore(), { cwd: process.cwd() })
    session.append('user/message', { id: 'u', content: [{ type: 'text', text: 'Look.' }], source: { kind: 'user' } })
    session.append('request/header', { reason: 'initial', config: { model: 'deepseek-v4-flash', effort: 'high' }, system: 'sys', tools: [], wire: 'chat' })
    session.append('assistant/message', {
      turn: 1,
      step: 1,
      message: { role: 'assistant', content: [{ type: 'tool-call', id: 'img', name: 'read', arguments: '{}' }] },
    })
    session.append('tool/result', {
      turn: 1,
      step: 1,
      callId: 'img',
      content: [
        { type: 'text', text: HUGE },
        { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' },
      ],
      isError: false,
    })
    appendToolStep(session, 1, 2, 'new', ['y'.repeat(10_000)])
    const outcome = await compactor(session).compact('auto', at(promptOf(session)))
    expect(outcome.outcome).not.toBe('trimmed')
    expect(eventsOf(session, 'tool/result').filter((e) => typeof e.surfaceOp === 'object')).toHaveLength(0)
  })
})

describe('compaction settings', () => {
  it('refuses a setting out of range with a sentence naming it', async () => {
    const session = await Session.create(new MemoryStore(), { cwd: process.cwd() })
    const make = (settings: Record<string, unknown>) => () =>
      new Compactor({ session, adapter: chatAdapter(mock.url), contextWindow: () => WINDOW, settings })
    expect(make({ ratio: 'high' })).toThrow('The setting compaction.ratio (or models.<id>.compactAt) is "high"; set it to a number from 0.05 to 1 in settings.json.')
    expect(make({ keepRatio: 1.5 })).toThrow(/compaction\.keepRatio is 1\.5/)
    expect(make({ trimKeepChars: 0 })).toThrow(/compaction\.trimKeepChars is 0; set it to a number of at least 1/)
    expect(make({ ratio: 0.5 })().threshold()).toBe(5_000)
  })
})
