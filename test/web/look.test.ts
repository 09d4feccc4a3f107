import { existsSync } from 'node:fs'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { newSession, send, useBrowser } from './browser.js'
import { raw, trusted } from './support.js'
import { JsonlStore } from '../../src/store/jsonl-store.js'
import { Session } from '../../src/session/session.js'
import { sandbox } from '../support/cli.js'

// Issue 34's features of the page itself: the sidebar and its live list, rename/archive/delete, tabs, the command
// palette, copy buttons, the theme toggle, and the quieter transcript.

const t = useBrowser()

const sidebar = (page: Page) => page.getByRole('navigation', { name: 'Sessions' })
const item = (page: Page, title: string) => sidebar(page).getByRole('listitem').filter({ hasText: title })

describe('the rein web sidebar, tabs, palette and copy buttons', () => {
  it('lists sessions in the sidebar live over the list stream (no polling), and renames, archives and deletes them', async () => {
    const run = await t.start({ script: [{ text: 'First.' }] })
    const page = await t.open()
    const listings: string[] = []
    page.on('request', (r) => new URL(r.url()).pathname === '/api/sessions' && r.method() === 'GET' && listings.push(r.url()))
    let shownEtag = ''
    page.on('response', (r) => {
      if (new URL(r.url()).pathname === '/api/sessions' && r.request().method() === 'GET' && r.status() === 200) shownEtag = (r.headers().etag ?? '').replace(/^W\//, '')
    })
    // A session started by a script (not this page) appears without a reload.
    const id = (await raw(run.origin, '/api/sessions', { method: 'POST', headers: trusted(run), body: JSON.stringify({ cwd: '.' }) })).json().id as string
    await raw(run.origin, `/api/sessions/${id}/input`, { method: 'POST', headers: trusted(run), body: JSON.stringify({ text: 'Plan the garden', how: 'enter' }) })
    await item(page, 'Plan the garden').waitFor()
    // The turn's end changes the listing once more; let it end and the page catch up before the idle window starts.
    const rows = async () => (await raw(run.origin, '/api/sessions', { headers: trusted(run) })).json() as unknown as { sessions: { id: string; state: string }[] }
    await expect.poll(async () => (await rows()).sessions.find((s) => s.id === id)?.state, { timeout: 20_000 }).toBe('idle')
    const etag = async () => String((await raw(run.origin, '/api/sessions', { headers: trusted(run) })).headers.etag).replace(/^W\//, '')
    await expect.poll(async () => shownEtag === (await etag()), { timeout: 20_000 }).toBe(true)
    // Idle, the page asks for nothing: the stream names a new listing only when there is one.
    const asked = listings.length
    await page.waitForTimeout(6_000)
    expect(listings.length).toBe(asked)

    await item(page, 'Plan the garden').getByRole('button', { name: 'Actions for Plan the garden' }).click()
    await page.getByRole('button', { name: 'Rename' }).click()
    await page.getByLabel('New title').fill('Garden plan')
    await page.getByLabel('New title').press('Enter')
    await item(page, 'Garden plan').waitFor()

    await item(page, 'Garden plan').getByRole('button', { name: 'Actions for Garden plan' }).click()
    await page.getByRole('button', { name: 'Archive' }).click()
    await expect.poll(() => item(page, 'Garden plan').count()).toBe(0)
    await page.getByLabel(/Show archived/).check()
    await item(page, 'Garden plan').getByText('archived').waitFor()

    await item(page, 'Garden plan').getByRole('button', { name: 'Actions for Garden plan' }).click()
    await page.getByRole('button', { name: 'Delete' }).click()
    const confirm = page.getByRole('alertdialog', { name: 'Delete Garden plan?' })
    await confirm.getByRole('button', { name: 'Delete' }).click()
    await expect.poll(() => item(page, 'Garden plan').count()).toBe(0)
    await expect(raw(run.origin, `/api/sessions/${id}`, { headers: trusted(run) }).then((r) => r.status)).resolves.toBe(404)
    await expect(new JsonlStore(run.box.home).location(id)).rejects.toThrow(/no session/)
  })

  it('groups the sidebar by project when the server shows every workspace (--all)', async () => {
    const box = sandbox()
    const other = sandbox()
    const store = new JsonlStore(box.home)
    for (const [cwd, text] of [[box.cwd, 'Here'], [other.root, 'Over there']]) {
      const session = await Session.create(store, { cwd })
      session.append('user/message', { id: 'u', content: [{ type: 'text', text }], source: { kind: 'user' } })
      await session.close()
    }
    await t.start({ box, args: ['--all'] })
    const page = await t.open()
    const here = sidebar(page).getByRole('region', { name: 'Project project' })
    await here.getByRole('link', { name: /Here/ }).waitFor()
    const there = sidebar(page).getByRole('region', { name: `Project ${other.root.split('/').pop()}` })
    await there.getByRole('link', { name: /Over there/ }).waitFor()
    expect(await here.getByRole('link').count()).toBe(1)
  })

  it('keeps a tab per opened session across a reload, and closing a tab leaves its session running', async () => {
    await t.start({ args: ['--permission-mode', 'bypass'], script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'while [ ! -f never ]; do sleep 0.05; done' } }] }] })
    const page = await t.open()
    const first = await newSession(page)
    await send(page, 'Start the long job')
    await page.locator('.tool', { hasText: 'running…' }).waitFor()
    const second = await newSession(page)
    const tabs = page.getByRole('navigation', { name: 'Open sessions' })
    await expect.poll(() => tabs.getByRole('link').count()).toBe(2)
    await page.reload()
    await expect.poll(() => tabs.getByRole('link').count()).toBe(2)
    await expect.poll(() => tabs.getByRole('link', { name: 'Start the long job' }).count()).toBe(1)
    await tabs.getByRole('button', { name: 'Close tab Start the long job' }).click()
    await expect.poll(() => tabs.getByRole('link').count()).toBe(1)
    expect(page.url()).toContain(second)
    await expect.poll(() => item(page, 'Start the long job').textContent()).toContain('running')
    const state = await raw(t.run.origin, `/api/sessions/${first}`, { headers: trusted(t.run) })
    expect(state.json().state).toMatchObject({ busy: true })
    await raw(t.run.origin, `/api/sessions/${first}/cancel`, { method: 'POST', headers: trusted(t.run), body: '{}' })
  })

  it('lists the catalog’s commands in the Ctrl+K palette and after "/" in the prompt, and runs one', async () => {
    const run = await t.start()
    const page = await t.open()
    const id = await newSession(page)
    const offered = (await raw(run.origin, `/api/sessions/${id}/commands`, { headers: trusted(run) })).json().builtins as { name: string }[]
    expect(offered.length).toBeGreaterThan(1)
    await page.keyboard.press('Control+k')
    const palette = page.getByRole('dialog', { name: 'Commands' })
    const options = palette.getByRole('option')
    await expect.poll(() => options.count()).toBe(offered.length)
    expect((await options.locator('code').allTextContents()).sort()).toEqual(offered.map((c) => `/${c.name}`).sort())
    await palette.getByRole('combobox').fill('help')
    await palette.getByRole('combobox').press('Enter')
    await page.getByRole('status').filter({ hasText: 'Commands and keys' }).waitFor()
    expect(await palette.count()).toBe(0)

    await page.locator('#prompt').focus()
    await page.keyboard.type('/')
    const slash = page.getByRole('listbox', { name: 'Commands' })
    await expect.poll(() => slash.getByRole('option').count()).toBe(offered.length)
    await page.keyboard.type('hel')
    await expect(slash.getByRole('option').locator('code').allTextContents()).resolves.toEqual(['/help'])
  })

  it('copies a reply and a code block, saying "Copied"; folds the runtime context into a note; labels a cancelled command "cancelled"', async () => {
    await t.start({
      args: ['--permission-mode', 'bypass'],
      script: [{ text: 'Run this:\n\n```sh\necho hello\n```\n' }, { toolCalls: [{ name: 'bash', arguments: { command: 'while [ ! -f never ]; do sleep 0.05; done' } }] }],
    })
    const page = await t.open()
    await t.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.run.origin })
    await newSession(page)
    await send(page, 'How do I greet?')
    const reply = page.locator('.msg.assistant', { hasText: 'Run this' })
    await reply.waitFor()
    await reply.locator('.code').getByRole('button', { name: 'Copy' }).click()
    await reply.locator('.code').getByRole('button', { name: 'Copied' }).waitFor()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('echo hello')
    await reply.getByRole('button', { name: 'Copy reply' }).click()
    await reply.getByRole('button', { name: 'Copied' }).first().waitFor()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('Run this:\n\n```sh\necho hello\n```\n')

    // The runtime context the harness injects with the prompt is a one-line note, not a card.
    expect(await page.locator('.msg.context').count()).toBe(0)
    expect(await page.locator('details.note', { hasText: 'runtime context' }).count()).toBeGreaterThan(0)

    await send(page, 'Now wait forever')
    await page.locator('.tool', { hasText: 'running…' }).waitFor()
    await page.keyboard.press('Escape')
    await expect.poll(() => page.locator('.tool .status').last().textContent()).toBe('cancelled')
    expect(await page.locator('.tool.cancelled').count()).toBe(1)
  })

  it('switches the theme with the header button, keeps it in localStorage across a reload, and follows the system when unset', async () => {
    await t.start()
    const page = await t.open({ colorScheme: 'dark' })
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor)
    const dark = await background()
    await page.getByRole('button', { name: /^Theme: system; switch to light$/ }).click()
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('light')
    const light = await background()
    expect(light).not.toBe(dark)
    await page.reload()
    await page.getByRole('button', { name: /^Theme: light; switch to dark$/ }).waitFor()
    expect(await background()).toBe(light)
    await page.getByRole('button', { name: /switch to dark/ }).click()
    await page.getByRole('button', { name: /switch to system/ }).click()
    expect(await page.evaluate(() => localStorage.getItem('rein.theme'))).toBeNull()
    expect(await background()).toBe(dark)
    expect(existsSync(t.run.box.home)).toBe(true)
  })
})
