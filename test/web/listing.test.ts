import { describe, expect, it } from 'vitest'
import { Session } from '../../src/session/session.js'
import { JsonlStore } from '../../src/store/jsonl-store.js'
import { INLINE_FIGURES } from '../../src/web/listing-figures.js'
import { sandbox } from '../support/cli.js'
import { useBrowser } from './browser.js'
import { raw, type WebRun } from './support.js'


const t = useBrowser()

interface Row {
  id: string
  title: string
  model: string
  pending?: boolean
}

/** A sandbox whose home holds `count` one-prompt sessions, titled `session <n>`. */
async function boxWithSessions(count: number): Promise<ReturnType<typeof sandbox>> {
  const box = sandbox()
  const store = new JsonlStore(box.home)
  for (let i = 0; i < count; i++) {
    const session = await Session.create(store, { cwd: box.cwd })
    session.append('request/header', { config: { model: 'deepseek-v4-flash', effort: 'high' } } as never)
    session.append('user/message', { id: `u${i}`, content: [{ type: 'text', text: `session ${i}` }], source: { kind: 'user' } })
    await session.close()
  }
  return box
}

const listing = (r: WebRun, headers: Record<string, string> = {}) =>
  raw(r.origin, '/api/sessions', { headers: { authorization: `Bearer ${r.token}`, ...headers } })

describe('the sessions listing of rein web', () => {
  it('answers a cold listing of many sessions at once: the newest rows have their figures, the rest follow as pending', async () => {
    const count = INLINE_FIGURES + 30
    const run = await t.start({ box: await boxWithSessions(count) })
    const first = listing(run).then((r) => r.json().sessions as Row[])
    const rows = await first
    expect(rows).toHaveLength(count)
    const pending = rows.filter((r) => r.pending)
    expect(pending).toHaveLength(30)
    // The pending ones are the oldest: the newest (the page's first screen) are complete.
    expect(rows.slice(0, INLINE_FIGURES).every((r) => !r.pending && r.model === 'deepseek-v4-flash')).toBe(true)
    for (;;) {
      const again = (await listing(run)).json().sessions as Row[]
      if (again.every((r) => !r.pending)) {
        expect(again.every((r) => r.model === 'deepseek-v4-flash')).toBe(true)
        break
      }
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  })

  it('revalidates: the same listing with its ETag is a bodiless 304, a changed listing or a stale ETag is a 200', async () => {
    const run = await t.start({ box: await boxWithSessions(2) })
    const first = await listing(run)
    const etag = String(first.headers.etag)
    expect(etag).toMatch(/^"[\w-]+"$/)
    const same = await listing(run, { 'if-none-match': etag })
    expect(same.status).toBe(304)
    expect(same.body).toBe('')
    // Compression marks the ETag weak; the weak form revalidates too.
    expect((await listing(run, { 'if-none-match': `W/${etag}` })).status).toBe(304)
    expect((await listing(run, { 'if-none-match': '"stale", "other"' })).status).toBe(200)
    expect((await listing(run, { 'if-none-match': 'garbage without quotes' })).status).toBe(200)
    const store = new JsonlStore(run.box.home)
    const added = await Session.create(store, { cwd: run.box.cwd })
    added.append('user/message', { id: 'u', content: [{ type: 'text', text: 'a third' }], source: { kind: 'user' } })
    await added.close()
    const changed = await listing(run, { 'if-none-match': etag })
    expect(changed.status).toBe(200)
    expect(changed.headers.etag).not.toBe(etag)
    expect((changed.json().sessions as Row[]).map((r) => r.title)).toContain('a third')
    // The token is still required to revalidate.
    const anonymous = await raw(run.origin, '/api/sessions', { headers: { 'if-none-match': etag } })
    expect(anonymous.status).toBe(401)
  })

  it('puts only the rows near the view in the page, and scrolling brings the oldest session in', async () => {
    const count = 600
    const run = await t.start({ box: await boxWithSessions(count) })
    const page = await t.open()
    const order = ((await listing(run)).json().sessions as Row[]).map((r) => r.id)
    const rows = page.locator('table.sessions tbody tr[data-session]')
    await rows.first().waitFor()
    await expect(rows.first().getAttribute('data-session')).resolves.toBe(order[0])
    expect(await rows.count()).toBeLessThan(100)
    await page.getByRole('region', { name: `Sessions, ${count} shown` }).evaluate((el) => (el.scrollTop = el.scrollHeight))
    const oldest = page.locator(`table.sessions tbody tr[data-session="${order[count - 1]}"]`)
    await oldest.waitFor()
    expect(await rows.count()).toBeLessThan(100)
    expect(await oldest.getAttribute('aria-rowindex')).toBe(String(count + 1))
    // The search box still filters over every session, not only the rendered ones.
    await page.getByLabel('Search').fill('session 7')
    await page.getByRole('region', { name: /Sessions, 11 shown/ }).waitFor()
  })

  it('marks forks as forks, in the list and on their page, and shows the logged settings of a fork nothing opened yet', async () => {
    const run = await t.start({ script: [{ text: 'One.' }] })
    const page = await t.open()
    await page.getByRole('button', { name: 'New session' }).click()
    await page.waitForURL(/#\/s\/[0-9a-f-]+$/)
    const parent = /#\/s\/([0-9a-f-]+)$/.exec(page.url())?.[1] as string
    await page.locator('#prompt').fill('First prompt')
    await page.locator('#prompt').press('Enter')
    await page.locator('.msg.assistant', { hasText: 'One.' }).waitFor()
    await page.getByRole('button', { name: 'Fork', exact: true }).click()
    await page.waitForURL((url) => !url.hash.includes(parent) && /#\/s\/[0-9a-f-]+$/.test(url.hash))
    await page.locator('.bar .tag.fork').waitFor()
    await page.locator('.msg.assistant', { hasText: 'One.' }).waitFor()
    for (const label of ['Permission mode', 'Model', 'Effort']) {
      const menu = page.getByLabel(label, { exact: true })
      expect(await menu.locator('option', { hasText: 'not open' }).count(), label).toBe(0)
    }
    await expect.poll(() => page.getByLabel('Model', { exact: true }).inputValue()).not.toBe('')
    await page.goto(`${run.origin}/#/`)
    const rows = page.locator('table.sessions tbody tr[data-session]')
    await expect.poll(() => rows.count()).toBe(2)
    await expect(page.locator(`tr[data-session="${parent}"] .tag.fork`).count()).resolves.toBe(0)
    const fork = page.locator('tr[data-session]', { has: page.locator('.tag.fork') })
    await expect(fork.count()).resolves.toBe(1)
    await expect(fork.textContent()).resolves.toContain('First prompt')
  })
})
