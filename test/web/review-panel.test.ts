import { writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { sandbox } from '../support/cli.js'
import { stdioFixture } from '../mcp/fixture.js'
import { launchBrowser, screenshot } from './browser.js'
import { startWeb, type WebRun } from './support.js'

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js')

/** A whole 1×1 PNG (the thumbnail must decode). */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64')

let browser: Browser
let run: WebRun | undefined
let context: BrowserContext | undefined
beforeAll(async () => {
  browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
})
afterEach(async () => {
  await context?.close()
  context = undefined
  await run?.stop()
  run = undefined
})

async function openSession(r: WebRun): Promise<Page> {
  // bypassCSP only so axe-core can be injected: the page's own CSP forbids injected scripts.
  context = await browser.newContext({ viewport: { width: 1200, height: 900 }, bypassCSP: true })
  const page = await context.newPage()
  await page.goto(r.address)
  await page.getByRole('button', { name: 'New session' }).first().click()
  await page.waitForURL(/#\/s\/[0-9a-f-]+$/)
  await page.locator('#prompt').waitFor()
  return page
}

/** axe-core's serious and critical violations on the page as it stands, as `rule (targets)` lines. */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE })
  return page.evaluate(async () => {
    type Violation = { id: string; impact: string | null; nodes: { target: string[] }[] }
    type Run = (ctx: Document, options: unknown) => Promise<{ violations: Violation[] }>
    const axe = (window as unknown as { axe: { run: Run } }).axe
    const { violations } = await axe.run(document, { rules: { 'label-content-name-mismatch': { enabled: true } } })
    return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`)
  })
}

const bodyOf = (r: WebRun, index: number): string => JSON.stringify(r.mock.requests[index]?.body)

describe('the composer’s attachments and @-mentions in the browser', () => {
  it('attaches a picked image, a pasted one and an @-completed file, and shows a refused upload’s sentence', async () => {
    const box = sandbox()
    writeFileSync(join(box.cwd, 'notes.txt'), 'the secret word is kumquat\n')
    run = await startWeb({ box, script: [{ text: 'Seen.' }] })
    const page = await openSession(run)
    await page.locator('input[type=file]').setInputFiles({ name: 'screen.png', mimeType: 'image/png', buffer: PNG })
    await page.getByRole('list', { name: 'Attached files' }).getByText('screen.png').waitFor()
    await page.locator('input[type=file]').setInputFiles({ name: 'fake.png', mimeType: 'image/png', buffer: Buffer.from('not an image') })
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('its bytes are not a PNG, JPEG, GIF or WebP image')
    await page.locator('#prompt').evaluate((el, bytes) => {
      const data = new DataTransfer()
      data.items.add(new File([new Uint8Array(bytes)], 'pasted.png', { type: 'image/png' }))
      el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }))
    }, [...PNG])
    await page.getByRole('list', { name: 'Attached files' }).getByText('pasted.png').waitFor()
    await page.locator('form.composer').evaluate((form) => {
      const data = new DataTransfer()
      data.items.add(new File(['- buy kumquats\n'], 'dropped.md', { type: 'text/markdown' }))
      form.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }))
    })
    await page.getByRole('list', { name: 'Attached files' }).getByText('dropped.md').waitFor()
    await page.locator('#prompt').click()
    await page.keyboard.type('@no')
    await page.getByRole('option', { name: '@notes.txt' }).waitFor()
    await page.keyboard.press('Escape')
    await page.getByRole('listbox', { name: 'Workspace files' }).waitFor({ state: 'detached' })
    await page.locator('#prompt').fill('')
    await page.keyboard.type('what is in @note')
    await page.getByRole('option', { name: '@notes.txt' }).waitFor()
    await page.keyboard.press('Tab')
    await expect.poll(() => page.locator('#prompt').inputValue()).toBe('what is in @notes.txt ')
    await screenshot(page, 'attachments')
    expect(await seriousViolations(page)).toEqual([])
    await page.keyboard.press('Enter')
    await page.getByText('Seen.').waitFor()
    const body = bodyOf(run, 0)
    expect(body.split(`data:image/png;base64,${PNG.toString('base64')}`).length).toBe(3)
    expect(body).toContain('the secret word is kumquat')
    expect(body).toContain('Attached file @dropped.md:\\n- buy kumquats')
    expect(await page.getByRole('list', { name: 'Attached files' }).count()).toBe(0)
  })
})

describe('the changed-files review and the MCP panel in the browser', () => {
  it('lists every file the session changed, grouped, with its diff (fitting a phone) and the rewind of its turn; and the session’s MCP servers', async () => {
    const box = sandbox()
    writeFileSync(join(box.cwd, 'a.txt'), 'mine\n')
    const fixture = stdioFixture()
    writeFileSync(
      join(box.home, 'settings.json'),
      JSON.stringify({ mcpServers: { fixture: { command: fixture.command, args: fixture.args }, broken: { command: join(box.root, 'no-such-server') } } }),
    )
    run = await startWeb({
      box,
      args: ['--permission-mode', 'bypass'],
      script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo agent > a.txt && mkdir -p src && echo new > src/b.txt' } }] }, { text: 'Done.' }],
    })
    const page = await openSession(run)
    await page.locator('#prompt').fill('change two files')
    await page.locator('#prompt').press('Enter')
    await page.getByText('Done.').waitFor()
    await page.getByRole('button', { name: 'Changed files' }).click()
    const panel = page.locator('#panel-changes')
    await panel.getByText('2 files changed').waitFor()
    expect(await panel.getByRole('region', { name: 'Changed in src' }).getByText('src/b.txt', { exact: true }).count()).toBe(1)
    await panel.getByRole('button', { name: 'Show diff of a.txt' }).click()
    await panel.getByText('+agent').waitFor()
    expect(await panel.locator('pre.diff').textContent()).toContain('-mine\n+agent\n')
    await screenshot(page, 'changed-files')
    expect(await seriousViolations(page)).toEqual([])
    await page.setViewportSize({ width: 390, height: 844 })
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0)
    await page.setViewportSize({ width: 1200, height: 900 })
    await panel.getByRole('button', { name: /Rewind to turn 1/ }).first().click()
    await page.getByRole('dialog', { name: 'Rewind to turn 1' }).waitFor()

    await page.getByRole('button', { name: 'MCP servers' }).click()
    const mcp = page.locator('#panel-mcp')
    await mcp.getByText('mcp__fixture__echo').waitFor()
    expect(await mcp.locator('li', { hasText: 'fixture' }).first().locator('.mcp-state').textContent()).toBe('connected')
    const broken = mcp.locator('li', { hasText: 'broken' })
    // A server that failed to start is retried with backoff: failed, or restarting between attempts.
    expect(await broken.locator('.mcp-state').textContent()).toMatch(/^(failed|restarting)$/)
    expect(await broken.locator('.error').textContent()).toMatch(/no-such-server|ENOENT|spawn/)
    await screenshot(page, 'mcp')
    expect(await seriousViolations(page)).toEqual([])
  })
})
