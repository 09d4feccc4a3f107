import { afterEach, describe, expect, it } from 'vitest'
import { Compactor, type CompactionSettings, type CompactorOptions } from '../../src/compaction/compactor.js'
import type { Extension } from '../../src/agent/extensions.js'
import { Session } from '../../src/session/session.js'
import { MemoryStore } from '../../src/store/memory-store.js'
import { harness, prefixViolations, type Harness } from '../support/agent-harness.js'
import { startMockModel, type MockModel, type MockResponse } from '../support/mock-model.js'
import { chatAdapter, contentText, eventsOf, SUMMARY_FRAME, SUMMARY_REQUEST, verifyProblems } from './support.js'

/** A context-too-long answer as DeepSeek words it (src/llm/classify.ts). */
const TOO_LONG: MockResponse = {
  error: {
    status: 400,
    body: { error: { message: "This model's maximum context length is 131072 tokens. However, you requested 140000 tokens.", type: 'invalid_request_error' } },
  },
}

/** `n` echo steps of ~300 tokens each (the text is in both the call and its result), then an answer. */
function echoSteps(n: number, answer = 'All echoed.'): MockResponse[] {
  const steps: MockResponse[] = []
  for (let i = 0; i < n; i++) steps.push({ toolCalls: [{ name: 'echo', arguments: { text: `step ${i} `.padEnd(600, '.') } }] })
  steps.push({ text: answer })
  return steps
}

interface Setup {
  h: Harness
  mock: MockModel
  notices: { level: string; message: string }[]
  trigger: string[]
}

let open: Setup | undefined
afterEach(async () => {
  await open?.h.close()
  await open?.mock.close()
  open = undefined
})

/** The agent of the test harness with a compactor over the mock; `window` in estimated tokens. */
async function setup(options: {
  script: MockResponse[]
  window: number
  settings?: Partial<CompactionSettings>
  preCompact?: CompactorOptions['preCompact']
  extensions?: Extension[]
}): Promise<Setup> {
  const mock = await startMockModel()
  const session = await Session.create(new MemoryStore(), { cwd: process.cwd() })
  const trigger: string[] = []
  const compactor = new Compactor({
    session,
    adapter: chatAdapter(mock.url),
    contextWindow: () => options.window,
    settings: options.settings,
    preCompact: async (t) => {
      trigger.push(t)
      return (await options.preCompact?.(t)) ?? {}
    },
  })
  const h = await harness({ script: options.script, mock, session, extensions: options.extensions, agent: { compactor } })
  const notices: Setup['notices'] = []
  h.agent.subscribe((e) => {
    if (e.type === 'notice') notices.push({ level: e.level, message: e.message })
  })
  open = { h, mock, notices, trigger }
  return open
}

type Body = { messages: { role: string; content: unknown; tool_call_id?: string }[] }
const bodyOf = (mock: MockModel, i: number): Body => mock.requests[i].body as Body
const isSummaryRequest = (body: Body): boolean => contentText(body.messages.at(-1)?.content).startsWith(SUMMARY_REQUEST)
const surfaceSeqs = (h: Harness): number[] => h.session.surface().map((e) => e.seq)

describe('automatic compaction in the agent', () => {
  it('summarizes before a request that would pass the threshold, from the cached prefix, and puts the summary where the shadowed messages were', async () => {
    const { h, mock } = await setup({
      window: 2_000,
      script: [{ match: SUMMARY_REQUEST, text: 'The user asked for echoes; steps 0 to 3 echoed.', repeat: true }, ...echoSteps(10)],
    })
    h.agent.followUp('Echo ten times.')
    expect((await h.agent.whenIdle())?.reason).toBe('completed')

    const k = mock.requests.findIndex((r) => isSummaryRequest(r.body as Body))
    expect(k).toBeGreaterThan(0)
    const summary = bodyOf(mock, k)
    const previous = bodyOf(mock, k - 1)
    const shadowed = summary.messages.slice(0, -1)
    expect(JSON.stringify(shadowed)).toBe(JSON.stringify(previous.messages.slice(0, shadowed.length)))
    expect(mock.requests[k].cacheHitTokens! / mock.requests[k].promptTokens!).toBeGreaterThan(0.8)

    const next = bodyOf(mock, k + 1)
    expect(next.messages[0].role).toBe('system')
    expect(contentText(next.messages[1].content).startsWith(SUMMARY_FRAME)).toBe(true)
    const kept = previous.messages.slice(shadowed.length)
    expect(JSON.stringify(next.messages.slice(2, 2 + kept.length))).toBe(JSON.stringify(kept))
    expect(next.messages.length).toBeLessThan(previous.messages.length)
    expect(verifyProblems(h.session, mock.url)).toEqual([])
  })

  it('logs the summary request as a compaction request inside the compaction/start and compaction/end bracket', async () => {
    const { h } = await setup({
      window: 2_000,
      script: [{ match: SUMMARY_REQUEST, text: 'Echoes so far.', repeat: true }, ...echoSteps(8)],
    })
    h.agent.followUp('Echo eight times.')
    await h.agent.whenIdle()
    const types = h.session.events.map((e) => e.type)
    const start = types.indexOf('compaction/start')
    expect(start).toBeGreaterThan(0)
    expect(types.slice(start, start + 4)).toEqual(['compaction/start', 'request/sent', 'context/message', 'compaction/end'])
    expect(h.session.events[start + 1].data).toMatchObject({ purpose: 'compaction' })
    expect(eventsOf(h.session, 'compaction/end')[0].data.usage?.inputCacheRead).toBeGreaterThan(0)
    const summary = h.session.events[start + 2]
    expect(summary.surfaceOp).toMatchObject({ op: 'replace', start: eventsOf(h.session, 'compaction/start')[0].data.start })
  })
})

/** A producer like the workspace-instructions one: enters its message whenever none of its own is on the surface. */
const FACTS = '<system-reminder>Project rule: run the tests before finishing.</system-reminder>'
const factsProducer: Extension = {
  name: 'facts',
  preStep(_step, entering, context) {
    const mine = (e: { type: string; data: unknown }) =>
      e.type === 'context/message' && (e.data as { source: { kind: string } }).source.kind === 'facts'
    if (context.session.surface().some(mine) || entering.some((m) => m.source.kind === 'facts')) return
    return { action: 'enter', messages: [...entering, { type: 'context/message', content: [{ type: 'text', text: FACTS }], source: { kind: 'facts' } }] }
  },
}

describe('context producers after compaction', () => {
  it('re-sends a producer message the summary shadowed with the very next request', async () => {
    const { h, mock } = await setup({
      window: 2_000,
      extensions: [factsProducer],
      script: [{ match: SUMMARY_REQUEST, text: 'Echoes so far.', repeat: true }, ...echoSteps(10)],
    })
    h.agent.followUp('Echo ten times.')
    expect((await h.agent.whenIdle())?.reason).toBe('completed')
    const k = mock.requests.findIndex((r) => isSummaryRequest(r.body as Body))
    expect(k).toBeGreaterThan(0)
    const texts = (i: number) => bodyOf(mock, i).messages.map((m) => contentText(m.content))
    expect(texts(k).filter((t) => t === FACTS)).toHaveLength(1)
    expect(texts(k + 1).filter((t) => t === FACTS)).toHaveLength(1)
    expect(texts(k + 1).at(-1)).toBe(FACTS)
    expect(verifyProblems(h.session, mock.url)).toEqual([])
  })

  it('runs sessionStart listeners with source compact, and the context they inject reaches the very next request', async () => {
    const sources: string[] = []
    const reminder = '<reminder>After compaction: re-read TODO.md.</reminder>'
    const { h, mock } = await setup({
      window: 2_000,
      extensions: [
        {
          name: 'session-start-hook',
          sessionStart: (context, source) => {
            sources.push(source)
            if (source === 'compact') context.inject(reminder, { kind: 'hook', event: 'SessionStart' })
          },
        },
      ],
      script: [{ match: SUMMARY_REQUEST, text: 'Echoes so far.', repeat: true }, ...echoSteps(10)],
    })
    h.agent.followUp('Echo ten times.')
    expect((await h.agent.whenIdle())?.reason).toBe('completed')
    expect(sources[0]).toBe('startup')
    expect(sources).toContain('compact')
    const k = mock.requests.findIndex((r) => isSummaryRequest(r.body as Body))
    const next = bodyOf(mock, k + 1).messages.map((m) => contentText(m.content))
    expect(next.at(-1)).toBe(reminder)
    expect(verifyProblems(h.session, mock.url)).toEqual([])
  })

  it('re-sends it before the retry after a context-too-long error', async () => {
    const { h, mock } = await setup({
      window: 100_000,
      settings: { keepRatio: 0.005 },
      extensions: [factsProducer],
      script: [{ match: SUMMARY_REQUEST, text: 'Six echoes were done.' }, ...echoSteps(6), TOO_LONG, { text: 'Continued.' }],
    })
    h.agent.followUp('Echo six times.')
    await h.agent.whenIdle()
    h.agent.followUp('Continue.')
    expect((await h.agent.whenIdle())?.reason).toBe('completed')
    const retry = bodyOf(mock, mock.requests.length - 1).messages.map((m) => contentText(m.content))
    expect(retry.filter((t) => t === FACTS)).toHaveLength(1)
    expect(verifyProblems(h.session, mock.url)).toEqual([])
  })
})

describe('context too long', () => {
  it('compacts and retries the request exactly once when the model says the context is too long', async () => {
    const { h, mock, trigger } = await setup({
      window: 100_000,
      settings: { keepRatio: 0.005 },
      script: [{ match: SUMMARY_REQUEST, text: 'Six echoes were done.' }, ...echoSteps(6), TOO_LONG, { text: 'Continued after compaction.' }],
    })
    h.agent.followUp('Echo six times.')
    await h.agent.whenIdle()
    const before = mock.requests.length
    h.agent.followUp('Continue.')
    const outcome = await h.agent.whenIdle()

    expect(outcome?.reason).toBe('completed')
    expect(trigger).toEqual(['overflow'])
    const after = mock.requests.slice(before).map((r) => (isSummaryRequest(r.body as Body) ? 'summary' : 'step'))
    expect(after).toEqual(['step', 'summary', 'step'])
    const retry = bodyOf(mock, before + 2)
    expect(contentText(retry.messages[1].content).startsWith(SUMMARY_FRAME)).toBe(true)
    expect(contentText(retry.messages.at(-1)?.content)).toBe('Continue.')
    expect(eventsOf(h.session, 'llm/retry')).toHaveLength(0)
    expect(contentText(eventsOf(h.session, 'assistant/message').at(-1)?.data.message.content)).toBe('Continued after compaction.')
    expect(verifyProblems(h.session, mock.url)).toEqual([])
  })

  it('ends the turn with an error naming /compact when the retried request is still too long', async () => {
    const { h, mock } = await setup({
      window: 100_000,
      settings: { keepRatio: 0.005 },
      script: [{ match: SUMMARY_REQUEST, text: 'Six echoes were done.' }, ...echoSteps(6), TOO_LONG, TOO_LONG, { text: 'never sent' }],
    })
    h.agent.followUp('Echo six times.')
    await h.agent.whenIdle()
    const before = mock.requests.length
    h.agent.followUp('Continue.')
    const outcome = await h.agent.whenIdle()

    expect(outcome?.reason).toBe('error')
    expect(outcome?.message).toMatch(/compact/i)
    expect(mock.requests.length - before).toBe(3)
    expect(eventsOf(h.session, 'compaction/end').map((e) => e.data.outcome)).toEqual(['replaced'])
  })

  it('ends the turn with the error and no retry when there is nothing to compact', async () => {
    const { h, mock } = await setup({ window: 100_000, script: [TOO_LONG, { text: 'never sent' }] })
    h.agent.followUp('Hello.')
    const outcome = await h.agent.whenIdle()
    expect(outcome?.reason).toBe('error')
    expect(mock.requests).toHaveLength(1)
  })
})

describe('compaction that does not happen', () => {
  async function afterSixEchoes(summary: MockResponse, preCompact?: CompactorOptions['preCompact']): Promise<Setup> {
    const s = await setup({ window: 100_000, settings: { keepRatio: 0.005 }, script: [summary, ...echoSteps(6)], preCompact })
    s.h.agent.followUp('Echo six times.')
    await s.h.agent.whenIdle()
    return s
  }

  it('leaves the surface unchanged and says so when the summary request fails', async () => {
    const { h, mock } = await afterSixEchoes({ match: SUMMARY_REQUEST, error: { status: 500 } })
    const before = surfaceSeqs(h)
    const outcome = await h.agent.compact()
    expect(outcome.outcome).toBe('failed')
    expect(outcome.message).toMatch(/^Compaction failed and the session is unchanged: /)
    expect(surfaceSeqs(h)).toEqual(before)
    expect(eventsOf(h.session, 'compaction/end')[0].data).toMatchObject({ outcome: 'failed' })

    mock.push({ text: 'Still here.' })
    h.agent.followUp('Are you there?')
    expect((await h.agent.whenIdle())?.reason).toBe('completed')
    const steps = h.bodies().filter((b) => !isSummaryRequest(b as Body))
    expect(prefixViolations(steps as { messages: unknown[] }[])).toEqual([])
    expect(verifyProblems(h.session, mock.url)).toEqual([])
  })

  it('leaves the surface unchanged and says so when the summary would not be smaller', async () => {
    const { h } = await afterSixEchoes({ match: SUMMARY_REQUEST, text: 'A summary longer than the session. '.repeat(400) })
    const before = surfaceSeqs(h)
    const outcome = await h.agent.compact()
    expect(outcome.outcome).toBe('no-gain')
    expect(outcome.message).toMatch(/would not be smaller .*; the session is unchanged\.$/)
    expect(surfaceSeqs(h)).toEqual(before)
    expect(eventsOf(h.session, 'compaction/end')[0].data.outcome).toBe('no-gain')
  })

  it('leaves the surface unchanged when the model answers the summary request with no text', async () => {
    const { h } = await afterSixEchoes({ match: SUMMARY_REQUEST, text: '' })
    const before = surfaceSeqs(h)
    const outcome = await h.agent.compact()
    expect(outcome.outcome).toBe('failed')
    expect(outcome.message).toMatch(/^Compaction failed and the session is unchanged: /)
    expect(surfaceSeqs(h)).toEqual(before)
  })

  it('stops before asking the model when a PreCompact hook blocks', async () => {
    const { h, mock, trigger } = await afterSixEchoes({ match: SUMMARY_REQUEST, text: 'unused' }, async () => ({ blocked: 'Not during the release.' }))
    const requests = mock.requests.length
    const before = surfaceSeqs(h)
    const outcome = await h.agent.compact()
    expect(outcome).toEqual({ outcome: 'blocked', message: 'A PreCompact hook blocked compaction: Not during the release.' })
    expect(trigger).toEqual(['manual'])
    expect(mock.requests.length).toBe(requests)
    expect(surfaceSeqs(h)).toEqual(before)
    expect(eventsOf(h.session, 'compaction/end')[0].data).toMatchObject({ outcome: 'blocked', message: 'Not during the release.' })
  })

  it('tries automatic compaction once per turn after a failure, and the turn still completes', async () => {
    const { h, notices } = await setup({
      window: 2_000,
      script: [{ match: SUMMARY_REQUEST, error: { status: 500 }, repeat: true }, ...echoSteps(8)],
    })
    h.agent.followUp('Echo eight times.')
    expect((await h.agent.whenIdle())?.reason).toBe('completed')
    const failed = eventsOf(h.session, 'compaction/end').filter((e) => e.data.outcome === 'failed')
    expect(failed).toHaveLength(1)
    expect(notices.filter((n) => n.level === 'warning' && n.message.startsWith('Compaction failed'))).toHaveLength(1)
    expect(h.session.events.filter((e) => typeof e.surfaceOp === 'object')).toHaveLength(0)

    h.mock.push(...echoSteps(1))
    h.agent.followUp('Once more.')
    expect((await h.agent.whenIdle())?.reason).toBe('completed')
    expect(eventsOf(h.session, 'compaction/end').filter((e) => e.data.outcome === 'failed')).toHaveLength(2)
  })

  it('says there is nothing to compact in a session with no history', async () => {
    const { h, mock } = await setup({ window: 2_000, script: [] })
    expect((await h.agent.compact()).outcome).toBe('nothing')
    expect(mock.requests).toHaveLength(0)
  })

  it('is cancelled with the agent and leaves the session unchanged', async () => {
    const { h } = await afterSixEchoes({ match: SUMMARY_REQUEST, text: 'late', delayMs: 5_000 })
    const before = surfaceSeqs(h)
    const pending = h.agent.compact()
    await new Promise((r) => setTimeout(r, 50))
    expect(h.agent.busy).toBe(true)
    h.agent.cancel()
    const outcome = await pending
    expect(outcome.outcome).toBe('failed')
    expect(outcome.message).toMatch(/cancelled/)
    expect(surfaceSeqs(h)).toEqual(before)
  })
})

describe('manual compaction', () => {
  it('passes the focus to the model and keeps the open todo list in the summary', async () => {
    const { h, mock } = await setup({
      window: 100_000,
      settings: { keepRatio: 0.005 },
      script: [{ match: SUMMARY_REQUEST, text: 'Echoes done; next: write the report.' }, ...echoSteps(6)],
    })
    h.agent.followUp('Echo six times.')
    await h.agent.whenIdle()
    h.session.append('todo/write', {
      todos: [
        { content: 'Echo six times', status: 'completed' },
        { content: 'Write the report', status: 'in_progress' },
      ],
    })
    const outcome = await h.agent.compact('the report format')
    expect(outcome.outcome).toBe('replaced')
    expect(outcome.message).toMatch(/^Compacted \d+ messages \(about [\d,]+ tokens\) into a summary of about [\d,]+ tokens\.$/)

    const instruction = contentText(bodyOf(mock, mock.requests.length - 1).messages.at(-1)?.content)
    expect(instruction).toContain('The user asked the summary to focus on: the report format')
    const summary = eventsOf(h.session, 'context/message').at(-1)!
    const text = contentText(summary.data.content)
    expect(text.startsWith(SUMMARY_FRAME)).toBe(true)
    expect(text).toContain('Echoes done; next: write the report.')
    expect(text).toContain('- [in_progress] Write the report')
    expect(text).not.toContain('Echo six times')
    expect(summary.data.source).toMatchObject({ kind: 'compaction' })
    expect(verifyProblems(h.session, mock.url)).toEqual([])
  })

  it('refuses while a turn runs', async () => {
    const { h } = await setup({ window: 100_000, script: [{ text: 'slow', delayMs: 300 }] })
    h.agent.followUp('Hello.')
    await expect(h.agent.compact()).rejects.toThrow(/Cannot compact while a turn runs/)
    await h.agent.whenIdle()
  })
})
