import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { costOf, modelInfo } from '../../src/llm/catalog.js'
import { openAgentWithContext, type OpenedAgent } from '../../src/runtime/open.js'
import type { SessionEvent } from '../../src/session/events.js'
import { isDamage, verifyEvents } from '../../src/session/verify.js'
import { readSessionLog } from '../../src/session/load.js'
import { requestDigests } from '../../src/frontend/session-requests.js'
import { openStore } from '../../src/runtime/open-store.js'
import { summarize } from '../../src/cli/print/result.js'
import { costReport } from '../../src/cli/tui/session-reports.js'
import { UsageLedger } from '../../src/cli/tui/usage-ledger.js'
import { sessionFigures } from '../../src/web/figures.js'
import { TITLE_SYSTEM } from '../../src/titles/title-request.js'
import { startMockModel, type MockModel, type MockResponse } from '../support/mock-model.js'

let root: string
let work: string
let home: string
let mock: MockModel | undefined
let opened: OpenedAgent | undefined

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'rein-titles-e2e-')))
  work = path.join(root, 'work')
  home = path.join(root, 'home')
  mkdirSync(work)
  mkdirSync(home)
})
afterEach(async () => {
  await opened?.agent.close()
  opened = undefined
  await mock?.close()
  mock = undefined
  rmSync(root, { recursive: true, force: true })
})

const PROMPT = 'Why does the login test fail Mondays?'
/** Answers only the title request (the session's own requests have another system prompt). */
const titleAnswer = (response: Omit<MockResponse, 'system'>): MockResponse => ({ ...response, system: TITLE_SYSTEM })

/** Opens an agent on the mock model with `settings` as the user's own file, and sends the first prompt. */
async function firstTurn(script: MockResponse[], settings: Record<string, unknown> = { sessionTitles: 'model' }, modelTitles?: boolean) {
  writeFileSync(path.join(home, 'settings.json'), JSON.stringify(settings))
  mock = await startMockModel({ script })
  opened = await openAgentWithContext({
    cwd: work,
    home,
    env: { ...process.env, REIN_HOME: home, DEEPSEEK_BASE_URL: mock.url, DEEPSEEK_API_KEY: 'test-key' },
    ...(modelTitles !== undefined ? { modelTitles } : {}),
  })
  opened.agent.followUp(PROMPT)
  await opened.agent.whenIdle()
  return opened.agent
}

/** The title request's outcome: the `session/title` or `title/failed` event, once it is logged. */
function titleOutcome(agent: OpenedAgent['agent']): Promise<SessionEvent> {
  const isOutcome = (e: SessionEvent) => e.type === 'session/title' || e.type === 'title/failed'
  const found = agent.session.events.find(isOutcome)
  if (found) return Promise.resolve(found)
  return new Promise((resolve) => {
    const stop = agent.session.subscribe((e) => {
      if (!isOutcome(e)) return
      stop()
      resolve(e)
    })
  })
}

/** The listing's title of the session, as `rein sessions list` and the web sidebar read it (from the store). */
async function listedTitle(id: string): Promise<string | undefined> {
  const store = await openStore({ home, env: { REIN_HOME: home } })
  return (await store.summaries('all')).find((s) => s.id === id)?.title
}

/** What `rein sessions verify` finds wrong with the stored log (structure, surface rules, request digests). */
async function damage(id: string): Promise<string[]> {
  const store = await openStore({ home, env: { REIN_HOME: home } })
  const { header, events } = await readSessionLog(store, id)
  return [...verifyEvents(header, events), ...requestDigests(header, events)].filter(isDamage).map((p) => `seq ${p.seq}: ${p.message}`)
}

const titleRequests = () => mock!.requests.filter((r) => (r.body as { messages?: { role: string; content: unknown }[] }).messages?.[0]?.content === TITLE_SYSTEM)

describe('model-made session titles', () => {
  it('after the first turn, ask the cheapest model once and log the title with the call’s model and usage', async () => {
    const agent = await firstTurn([{ text: 'It depends on the week number.' }, titleAnswer({ text: '"Login test fails on Mondays."' })])
    const event = await titleOutcome(agent)

    expect(event.type).toBe('session/title')
    const data = (event as SessionEvent<'session/title'>).data
    expect(data).toMatchObject({ title: 'Login test fails on Mondays', by: 'model', model: 'deepseek-flash' })
    expect(data.usage?.output).toBeGreaterThan(0)

    const [request] = titleRequests()
    const body = request.body as { model: string; max_tokens: number; thinking?: { type: string }; tools?: unknown; messages: { content: string }[] }
    expect(body).toMatchObject({ model: 'deepseek-flash', max_tokens: 32, thinking: { type: 'disabled' } })
    expect(body.tools).toBeUndefined()
    expect(body.messages[1].content).toContain(PROMPT)
    expect(body.messages[1].content).toContain('It depends on the week number.')
    expect(await listedTitle(agent.session.id)).toBe('Login test fails on Mondays')
  })

  it('count the title call in /cost, the web figures and the headless total_cost_usd', async () => {
    const agent = await firstTurn([{ text: 'It depends on the week number.' }, titleAnswer({ text: 'Monday login failures' })])
    const event = (await titleOutcome(agent)) as SessionEvent<'session/title'>
    const events = agent.session.events
    const flash = modelInfo('deepseek-flash')
    const titleCost = costOf(event.data.usage!, flash, event.time)
    const stepCost = events.reduce((sum, e) => sum + (e.type === 'assistant/message' && e.data.usage ? costOf(e.data.usage, flash, e.time) : 0), 0)
    expect(titleCost).toBeGreaterThan(0)

    const ledger = new UsageLedger((model) => ({ contextWindow: modelInfo(model).contextWindow, cost: (usage, time) => costOf(usage, modelInfo(model), time) }), 'deepseek-flash')
    ledger.load(events)
    expect(ledger.figures('deepseek-flash').totalCost).toBeCloseTo(stepCost + titleCost, 12)
    const report = costReport(ledger.byTurn(), ledger.subagents(), ledger.sideRequests())
    expect(report).toMatch(/^title {5}deepseek-flash {2}in \d+ {2}out \d+ {2}\$/m)
    expect(report).toContain(`total $${(stepCost + titleCost).toFixed(4)}`)

    const price = (model: string, usage: Parameters<typeof costOf>[0], time: number) => costOf(usage, modelInfo(model), time)
    expect(sessionFigures(events, price).cost).toBeCloseTo(stepCost + titleCost, 12)

    const result = summarize(events, 0, agent.session.id, undefined, flash, 0)
    expect(result.total_cost_usd).toBeCloseTo(stepCost + titleCost, 6)
    expect(result.total_cost_usd).toBeGreaterThan(Number(stepCost.toFixed(6)))
  })

  it('are off by default: no title request, the first prompt names the session', async () => {
    const agent = await firstTurn([{ text: 'It depends.' }], {})
    await agent.close()
    expect(mock!.requests).toHaveLength(1)
    expect(agent.session.events.some((e) => e.type === 'session/title' || e.type === 'title/failed')).toBe(false)
    expect(await listedTitle(agent.session.id)).toBe(PROMPT)
  })

  it('are never asked for in print mode, whatever the setting', async () => {
    const agent = await firstTurn([{ text: 'It depends.' }], { sessionTitles: 'model' }, false)
    await agent.close()
    expect(mock!.requests).toHaveLength(1)
  })

  it('leave the first-prompt title and log one sentence when the title call fails', async () => {
    const agent = await firstTurn([{ text: 'It depends.' }, titleAnswer({ error: { status: 500, body: { error: { message: 'boom' } } } })])
    const event = await titleOutcome(agent)
    expect(event.type).toBe('title/failed')
    expect(event.ignorable).toBe(true)
    const data = (event as SessionEvent<'title/failed'>).data
    expect(data.error.message).toMatch(/^The title request failed, so the first prompt names the session: [^\n]+$/)
    expect(titleRequests()).toHaveLength(1)
    expect(await listedTitle(agent.session.id)).toBe(PROMPT)
  })

  it('leave the first-prompt title when the model answers garbage, and still count what the call used', async () => {
    const agent = await firstTurn([{ text: 'It depends.' }, titleAnswer({ text: '\u202e***\n---' })])
    const event = (await titleOutcome(agent)) as SessionEvent<'title/failed'>
    expect(event.type).toBe('title/failed')
    expect(event.data.error).toEqual({ code: 'empty-title', message: 'The model answered the title request with no usable title; the first prompt names the session.' })
    expect(event.data.usage?.output).toBeGreaterThan(0)
    expect(await listedTitle(agent.session.id)).toBe(PROMPT)
    const price = (model: string, usage: Parameters<typeof costOf>[0], time: number) => costOf(usage, modelInfo(model), time)
    const withoutTitle = sessionFigures(agent.session.events.filter((e) => e.type !== 'title/failed'), price).cost
    expect(sessionFigures(agent.session.events, price).cost).toBeGreaterThan(withoutTitle)
    await agent.close()
    expect(await damage(agent.session.id)).toEqual([])
  })

  it('never overwrite a rename that lands while the title call runs', async () => {
    const agent = await firstTurn([{ text: 'It depends.' }, titleAnswer({ text: 'Model title', delayMs: 1500 })])
    // The web's rename, while the title request waits for its answer.
    agent.session.append('session/title', { title: 'My own name' })
    const outcome = await new Promise<SessionEvent>((resolve) => {
      const stop = agent.session.subscribe((e) => {
        if (e.type === 'title/failed' || e.type === 'session/title') {
          stop()
          resolve(e)
        }
      })
    })
    expect(outcome.type).toBe('title/failed')
    expect((outcome as SessionEvent<'title/failed'>).data.error.code).toBe('renamed')
    expect(agent.session.last('session/title')?.data).toEqual({ title: 'My own name' })
    expect(await listedTitle(agent.session.id)).toBe('My own name')
  })

  it('stop a title call still running when the session closes, logging nothing, and leave a log that verifies', async () => {
    const agent = await firstTurn([{ text: 'It depends.' }, titleAnswer({ text: 'Too late', delayMs: 60_000 })])
    await agent.close()
    const events = agent.session.events
    expect(events.some((e) => e.type === 'session/title' || e.type === 'title/failed')).toBe(false)
    expect(await damage(agent.session.id)).toEqual([])
  })

  it('leave a log that verifies, and a resumed session does not ask again', async () => {
    const agent = await firstTurn([{ text: 'It depends.' }, titleAnswer({ text: 'Monday login failures' })])
    await titleOutcome(agent)
    await agent.close()
    expect(await damage(agent.session.id)).toEqual([])
    mock!.push({ text: 'Still Mondays.' }, titleAnswer({ text: 'Second title', repeat: true }))
    opened = await openAgentWithContext({
      cwd: work,
      home,
      env: { ...process.env, REIN_HOME: home, DEEPSEEK_BASE_URL: mock!.url, DEEPSEEK_API_KEY: 'test-key' },
      resume: agent.session.id,
    })
    opened.agent.followUp('And on Tuesdays?')
    await opened.agent.whenIdle()
    await opened.agent.close()
    expect(titleRequests()).toHaveLength(1)
    expect(await listedTitle(agent.session.id)).toBe('Monday login failures')
  })
})
