import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { lastUserText } from '../support/mock-model.js'
import { newSession, screenshot, send, useBrowser } from './browser.js'
import type { WebRun } from './support.js'
import { sandbox } from '../support/cli.js'
import { Session } from '../../src/session/session.js'
import { JsonlStore } from '../../src/store/jsonl-store.js'
// The benchmarks' deterministic session generator (plain JavaScript).
import { appendRealisticTurn, random } from '../../bench/session-fixture.mjs'

const t = useBrowser()

interface LoggedEvent {
  seq: number
  type: string
  data: Record<string, unknown>
}

/** The session's log as the store wrote it. */
function logOf(r: WebRun, id: string): LoggedEvent[] {
  const sessions = join(r.box.home, 'sessions')
  for (const dir of readdirSync(sessions)) {
    const file = join(sessions, dir, `${id}.jsonl`)
    try {
      return readFileSync(file, 'utf8').trim().split('\n').slice(1).map((line) => JSON.parse(line) as LoggedEvent)
    } catch {
      // Not in this directory's folder: look in the next.
    }
  }
  throw new Error(`no log for session ${id}`)
}

type ChatMessage = { role: string; content: unknown }
const messagesOf = (r: WebRun, index: number): ChatMessage[] => (r.mock.requests[index].body as { messages: ChatMessage[] }).messages
const isText = (m: ChatMessage, text: string): boolean =>
  m.role === 'user' && (m.content === text || (Array.isArray(m.content) && m.content.length === 1 && (m.content[0] as { text?: string }).text === text))

describe('rein web in a browser', () => {
  it('takes the token from the address, drops it from the address bar, and streams a reply to a prompt', async () => {
    const reply = 'Hello from the mock model. This reply arrives a few characters at a time so the page shows it growing.'
    const run = await t.start({ script: [{ text: reply, chunkSize: 4, chunkDelayMs: 25 }] })
    const page = await t.open()
    expect(page.url()).not.toContain('token')
    await newSession(page)
    await send(page, 'Say hello')
    await page.locator('.msg.assistant.streaming').waitFor()
    await page.locator('.msg.assistant:not(.streaming)', { hasText: reply }).waitFor()
    await expect.poll(() => page.getByTestId('state').textContent()).toBe('idle')
    await expect(page.locator('.msg.user').first().textContent()).resolves.toContain('Say hello')
    await screenshot(page, 'session')
    await page.emulateMedia({ colorScheme: 'dark' })
    await screenshot(page, 'session-dark')
    await page.emulateMedia({ colorScheme: 'light' })
    await page.goto(`${run.origin}/#/`)
    await page.locator('table.sessions tbody tr').first().waitFor()
    await expect(page.locator('table.sessions tbody tr').first().textContent()).resolves.toContain('Say hello')
    await screenshot(page, 'sessions')
  })

  it('renders the reply as Markdown while it streams, and the committed message keeps the same markup', async () => {
    const reply = '## Plan\n\nFirst a **bold** step.\n\n- one\n- two\n\nAnd a closing paragraph that takes a while to arrive in small pieces.'
    await t.start({ script: [{ text: reply, chunkSize: 3, chunkDelayMs: 40 }] })
    const page = await t.open()
    await newSession(page)
    await send(page, 'Plan it')
    const streaming = page.locator('.msg.assistant.streaming')
    await streaming.locator('strong', { hasText: 'bold' }).waitFor()
    await streaming.locator('h2', { hasText: 'Plan' }).waitFor()
    const done = page.locator('.msg.assistant:not(.streaming)', { hasText: 'closing paragraph' })
    await done.waitFor()
    expect(await done.locator('.md').innerHTML()).toMatch(/<h2[^>]*>Plan<\/h2>[\s\S]*<strong>bold<\/strong>[\s\S]*<li>one<\/li>/)
  })

  it('shows a sentence, and no sessions, to a browser that never had the token', async () => {
    const run = await t.start()
    const page = await t.open({ signIn: false })
    await page.goto(run.origin)
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/lacks the rein web token/)
  })

  it('answers a permission request inline, and Enter during the slow tool steers: the mock gets the text verbatim as the next user message', async () => {
    const steer = 'Use the short path instead.'
    const run = await t.start({
      script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'while [ ! -f go ]; do sleep 0.05; done; echo released' } }] }, { text: 'Adjusted.' }],
    })
    const page = await t.open()
    const id = await newSession(page)
    await send(page, 'Run the slow job')
    const ask = page.getByRole('alertdialog', { name: 'Permission for bash' })
    await ask.waitFor()
    await screenshot(page, 'permission')
    await ask.getByRole('button', { name: 'Allow once' }).click()
    await page.locator('.tool', { hasText: 'running…' }).waitFor()
    await expect(page.locator('#prompt').getAttribute('placeholder')).resolves.toMatch(/steers/)
    const answered = page.waitForResponse((r) => r.url().endsWith('/input'))
    await send(page, steer)
    expect(await (await answered).json()).toMatchObject({ delivered: 'steer' })
    writeFileSync(join(run.box.cwd, 'go'), '')
    await page.locator('.msg.assistant', { hasText: 'Adjusted.' }).waitFor()
    await page.locator('.msg.steering', { hasText: steer }).waitFor()
    // The steering text is printed once (not as a summary line and again as its body).
    expect((await page.locator('.msg.steering').innerText()).split(steer).length - 1).toBe(1)

    expect(run.mock.requests).toHaveLength(2)
    const second = messagesOf(run, 1)
    const toolAt = second.findIndex((m) => m.role === 'tool')
    const steerAt = second.findIndex((m) => isText(m, steer))
    expect(toolAt).toBeGreaterThan(-1)
    expect(steerAt).toBeGreaterThan(toolAt)
    expect(lastUserText(second)).toBe(steer)
    const steering = logOf(run, id).filter((e) => e.type === 'steering/message')
    expect(steering.map((e) => e.data.content)).toEqual([[{ type: 'text', text: steer }]])
  })

  it('asks for a write with its diff, computed before approval, and titles the tool card from the tool, not its JSON', async () => {
    const run = await t.start({
      script: [
        { toolCalls: [{ name: 'read', arguments: { file_path: 'notes.txt' } }] },
        { toolCalls: [{ name: 'write', arguments: { file_path: 'notes.txt', content: 'first line\n' } }] },
        { text: 'Written.' },
      ],
    })
    writeFileSync(join(run.box.cwd, 'notes.txt'), 'old line\n')
    const page = await t.open()
    await newSession(page)
    await send(page, 'Write the notes')
    const ask = page.getByRole('alertdialog', { name: 'Permission for write' })
    await ask.waitFor()
    await expect(ask.locator('.diff').textContent()).resolves.toMatch(/-old line\s*\+first line/)
    await expect(ask.textContent()).resolves.toContain('Write notes.txt')
    await expect(ask.textContent()).resolves.not.toContain('"file_path"')
    expect(readFileSync(join(run.box.cwd, 'notes.txt'), 'utf8')).toBe('old line\n')
    await ask.getByRole('button', { name: 'Allow once' }).click()
    await page.locator('.msg.assistant', { hasText: 'Written.' }).waitFor()
    const headers = await page.locator('.tool summary').allTextContents()
    expect(headers[0]).toMatch(/read\s*notes\.txt\s*done · 1 line/)
    expect(headers[1]).toMatch(/write\s*notes\.txt\s*done · replaced/)
    for (const header of headers) expect(header).not.toContain('{')
  })

  it('allows always from the page: the suggested rule is saved and the same call no longer asks', async () => {
    const run = await t.start({
      script: [
        { toolCalls: [{ name: 'bash', arguments: { command: 'echo one' } }] },
        { toolCalls: [{ name: 'bash', arguments: { command: 'echo one' } }] },
        { text: 'Both ran.' },
      ],
    })
    const page = await t.open()
    await newSession(page)
    await send(page, 'Echo twice')
    const ask = page.getByRole('alertdialog', { name: 'Permission for bash' })
    await ask.getByRole('button', { name: /Allow always/ }).click()
    await page.locator('.msg.assistant', { hasText: 'Both ran.' }).waitFor()
    expect(await page.getByRole('alertdialog').count()).toBe(0)
    const saved = JSON.parse(readFileSync(join(run.box.cwd, '.rein', 'settings.local.json'), 'utf8')) as { permissions: { allow: string[] } }
    expect(saved.permissions.allow).toEqual(['Bash(echo one)'])
    await expect(page.locator('.tool').count()).resolves.toBe(2)
  })

  it('queues a follow-up while a tool runs, cancels the turn, and then runs the follow-up as its own turn', async () => {
    const run = await t.start({
      args: ['--permission-mode', 'bypass'],
      script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'while [ ! -f never ]; do sleep 0.05; done' } }] }, { text: 'Follow-up answered.' }],
    })
    const page = await t.open()
    const id = await newSession(page)
    await send(page, 'Start the long job')
    await page.locator('.tool', { hasText: 'running…' }).waitFor()
    await page.locator('#prompt').fill('And then summarise.')
    await page.getByRole('button', { name: 'Queue follow-up' }).click()
    const queue = page.getByRole('list', { name: 'Queued inputs' })
    await queue.getByText('And then summarise.').waitFor()
    await queue.getByRole('button', { name: 'Withdraw' }).click()
    await expect.poll(() => page.locator('#prompt').inputValue()).toBe('And then summarise.')
    await page.locator('#prompt').fill('And then summarize.')
    await page.getByRole('button', { name: 'Queue follow-up' }).click()
    await page.getByText('1 queued').waitFor()
    await page.getByRole('button', { name: 'Cancel' }).click()
    await page.locator('.notice', { hasText: 'Cancelled.' }).waitFor()
    await page.locator('.msg.assistant', { hasText: 'Follow-up answered.' }).waitFor()
    expect(lastUserText(messagesOf(run, 1))).toBe('And then summarize.')
    const ends = logOf(run, id).filter((e) => e.type === 'turn/end').map((e) => e.data.reason)
    expect(ends).toEqual(['aborted', 'completed'])
    const withdrawn = logOf(run, id).filter((e) => e.type === 'inbox/dequeued' && e.data.reason === 'withdrawn')
    expect(withdrawn).toHaveLength(1)
    expect(messagesOf(run, 1).some((m) => isText(m, 'And then summarise.'))).toBe(false)
  })

  it('compacts from the page and shows the summary marked as such', async () => {
    const run = await t.start({ script: [{ text: 'One.' }, { text: 'Two.' }, { text: 'The user asked two things; both were answered.' }] })
    const page = await t.open()
    const id = await newSession(page)
    await send(page, 'First prompt')
    await page.locator('.msg.assistant', { hasText: 'One.' }).waitFor()
    await send(page, 'Second prompt')
    await page.locator('.msg.assistant', { hasText: 'Two.' }).waitFor()
    await page.getByRole('button', { name: 'Compact' }).click()
    await page.locator('.msg.summary', { hasText: 'Compaction summary' }).waitFor()
    const end = logOf(run, id).find((e) => e.type === 'compaction/end')
    expect(end?.data.outcome).toBe('replaced')
    // Announced once: the transcript's notice, not a second copy in the bar.
    const message = String(end?.data.message)
    await page.locator('.notice', { hasText: message }).waitFor()
    await page.waitForFunction(() => !document.body.textContent?.includes('Compacting…'))
    expect(await page.getByText(message).count()).toBe(1)
  })

  it('shows each step of the inspector with its digest check and the figures the log holds', async () => {
    const run = await t.start({
      args: ['--permission-mode', 'bypass'],
      script: [{ toolCalls: [{ name: 'ls', arguments: { path: '.' } }] }, { text: 'Listed.', reasoning: 'The folder is empty.' }],
    })
    const page = await t.open()
    const id = await newSession(page)
    await send(page, 'What is here?')
    await page.locator('.msg.assistant', { hasText: 'Listed.' }).waitFor()
    await page.getByRole('link', { name: 'Inspector' }).click()
    const rows = page.locator('table.steps tbody tr')
    await rows.nth(1).waitFor()
    const log = logOf(run, id)
    const sent = log.filter((e) => e.type === 'request/sent')
    const answers = log.filter((e) => e.type === 'assistant/message')
    expect(await rows.count()).toBe(sent.length)
    for (let i = 0; i < sent.length; i++) {
      const row = rows.nth(i)
      expect(await row.getAttribute('data-seq')).toBe(String(sent[i].seq))
      expect(await row.locator('[data-digest]').getAttribute('data-digest')).toBe('match')
      expect(await row.locator('[data-digest]').textContent()).toContain(String(sent[i].data.sha256).slice(0, 12))
      const usage = answers[i].data.usage as { inputUncached: number; inputCacheRead: number; output: number }
      const n = (v: number): string => v.toLocaleString('en-US')
      expect(await row.locator('[data-field=prompt]').textContent()).toBe(n(usage.inputUncached + usage.inputCacheRead))
      expect(await row.locator('[data-field=cached]').textContent()).toBe(n(usage.inputCacheRead))
      expect(await row.locator('[data-field=output]').textContent()).toBe(n(usage.output))
    }
    await page.locator('svg.chart path.bar-total').waitFor()
    const totals = page.locator('table.steps tfoot tr[data-totals]')
    const n = (v: number): string => v.toLocaleString('en-US')
    const usages = answers.map((a) => a.data.usage as { inputUncached: number; inputCacheRead: number; output: number })
    expect(await totals.locator('[data-field=prompt]').textContent()).toBe(n(usages.reduce((a, u) => a + u.inputUncached + u.inputCacheRead, 0)))
    expect(await totals.locator('[data-field=output]').textContent()).toBe(n(usages.reduce((a, u) => a + u.output, 0)))
    expect(await totals.textContent()).toContain(`${sent.length} requests`)
    // The chart's axes are labelled: the steps under it, tokens and the share beside it.
    await expect(page.locator('svg.chart [data-axis=step]').allTextContents()).resolves.toEqual(['1.1', '1.2'])
    await expect(page.locator('svg.chart [data-axis=tokens-max]').textContent()).resolves.toMatch(/tokens$/)
    await expect(page.locator('svg.chart [data-axis=share-max]').textContent()).resolves.toBe('100%')
    // Pointing at a bar reads its figures out in one line: two paths draw every bar, not two elements a step.
    const box = await page.locator('svg.chart').boundingBox()
    if (!box) throw new Error('the chart has no box')
    await page.mouse.move(box.x + (box.width * (34 + 1.5 * ((720 - 68) / 2))) / 720, box.y + box.height / 2)
    const prompt = usages[1].inputUncached + usages[1].inputCacheRead
    await expect.poll(() => page.locator('figure .readout').textContent()).toMatch(new RegExp(`^turn 1 step 2: ${prompt} prompt \\(${usages[1].inputCacheRead} cached\\)`))
    await expect(page.locator('svg.chart rect, svg.chart g').count()).resolves.toBe(1)
    await rows.nth(1).getByRole('link').click()
    const request = page.getByRole('region', { name: /Request of turn 1 step 2/ })
    await request.waitFor()
    const items = request.locator('ol.messages > li')
    const user = log.find((e) => e.type === 'user/message') as LoggedEvent
    const labelled = items.filter({ hasText: `seq ${user.seq}` })
    await expect(labelled.getAttribute('data-event')).resolves.toBe('user/message')
    await expect(labelled.textContent()).resolves.toContain('from user')
    await expect(items.filter({ has: page.locator('strong', { hasText: /^tool$/ }) }).count()).resolves.toBe(1)
    await expect(request.textContent()).resolves.toContain('matches the log')
    await page.locator('table.raw tbody tr').first().waitFor()
    await screenshot(page, 'inspector')
  })

  it('keeps two pages on one session in step, and switches mode, model and effort for the next request', async () => {
    const run = await t.start({ script: [{ text: 'First answer.' }, { text: 'Second answer.' }] })
    const a = await t.open()
    const id = await newSession(a)
    const b = await t.context.newPage()
    await b.goto(`${run.origin}/#/s/${id}`)
    await b.locator('#prompt').waitFor()
    await send(a, 'Question one')
    await b.locator('.msg.assistant', { hasText: 'First answer.' }).waitFor()
    await a.locator('.msg.assistant', { hasText: 'First answer.' }).waitFor()

    await b.getByLabel('Model', { exact: true }).selectOption('deepseek-v4-pro')
    await b.getByLabel('Effort').selectOption('off')
    await b.getByLabel('Permission mode').selectOption('plan')
    await expect.poll(() => a.getByLabel('Model', { exact: true }).inputValue()).toBe('deepseek-v4-pro')
    await expect.poll(() => a.getByLabel('Permission mode').inputValue()).toBe('plan')
    await send(b, 'Question two')
    await a.locator('.msg.assistant', { hasText: 'Second answer.' }).waitFor()
    await a.locator('.msg.user', { hasText: 'Question two' }).waitFor()
    expect((run.mock.requests[1].body as { model: string }).model).toBe('deepseek-v4-pro')
    const headers = logOf(run, id).filter((e) => e.type === 'request/header')
    expect((headers[headers.length - 1].data.config as { model: string; effort: string })).toMatchObject({ model: 'deepseek-v4-pro', effort: 'off' })
    expect(logOf(run, id).some((e) => e.type === 'permission/mode' && e.data.mode === 'plan')).toBe(true)
  })

  it('forks at a message into a new session and exports the conversation', async () => {
    const run = await t.start({ script: [{ text: 'One.' }, { text: 'Two.' }] })
    const page = await t.open()
    const id = await newSession(page)
    await send(page, 'First prompt')
    await page.locator('.msg.assistant', { hasText: 'One.' }).waitFor()
    await send(page, 'Second prompt')
    await page.locator('.msg.assistant', { hasText: 'Two.' }).waitFor()
    const exported = await page.request.get(`${run.origin}/api/sessions/${id}/export?format=md`)
    expect(exported.status()).toBe(200)
    expect(await exported.text()).toMatch(/First prompt[\s\S]*One\.[\s\S]*Second prompt[\s\S]*Two\./)
    await page.locator('.msg.user', { hasText: 'First prompt' }).getByRole('button', { name: /Fork here/ }).click()
    await page.waitForURL((url) => !url.hash.includes(id) && /#\/s\/[0-9a-f-]+$/.test(url.hash))
    await page.getByText(`forked from ${id.slice(0, 8)}`).waitFor()
    await page.locator('.msg.assistant', { hasText: 'One.' }).waitFor()
    expect(await page.locator('.msg.user', { hasText: 'Second prompt' }).count()).toBe(0)
  })

  it('opens a long session at its newest events, renders only the entries near the viewport, and pages earlier events in', async () => {
    const box = sandbox()
    const session = await Session.create(new JsonlStore(box.home), { cwd: box.cwd })
    const rand = random(7)
    for (let turn = 1; session.length < 3_000; turn++) appendRealisticTurn(session, turn, rand, 3)
    await session.close()
    const run = await t.start({ box })
    const page = await t.open()
    await page.goto(`${run.origin}/#/s/${session.id}`)
    await page.locator('.msg.assistant').last().waitFor()
    const total = session.length
    await page.getByRole('button', { name: `Load earlier events (before seq ${total - 400})` }).waitFor()
    const rendered = await page.locator('[data-key]').count()
    expect(rendered).toBeGreaterThan(0)
    expect(rendered).toBeLessThan(80)
    await page.getByRole('button', { name: /Load earlier events/ }).click()
    await page.getByRole('button', { name: `Load earlier events (before seq ${total - 800})` }).waitFor()
    expect(await page.locator('[data-key]').count()).toBeLessThan(80)
  })
})
