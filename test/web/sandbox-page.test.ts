import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser } from './browser.js'
import { startWeb, type WebRun } from './support.js'
import { sandbox as testBox } from '../support/cli.js'
import { requireBwrap } from '../sandbox/bwrap-required.js'

// The page in a real browser, with the sandbox on in the user's settings: a bash card carries the `sandboxed` tag, and
// the sandbox's note stays in sight while the card is collapsed.

const bwrap = requireBwrap()

let browser: Browser | undefined
let run: WebRun | undefined
beforeAll(async () => {
  if (bwrap.available) browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
  await run?.stop()
})

describe.runIf(bwrap.available)('the page shows a sandboxed command', () => {
  it('tags the card sandboxed and shows what the sandbox stopped', async () => {
    const box = testBox()
    writeFileSync(join(box.home, 'settings.json'), JSON.stringify({ sandbox: { enabled: true } }))
    run = await startWeb({
      box,
      args: ['--permission-mode', 'default'],
      script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'touch /etc/rein-page-probe' } }] }, { text: 'Tried it.' }],
    })
    const context = await browser!.newContext({ viewport: { width: 1200, height: 800 } })
    const page = await context.newPage()
    await page.goto(run.address)
    await page.getByRole('button', { name: 'New session' }).click()
    await page.locator('#prompt').waitFor()
    await page.locator('#prompt').fill('try it')
    await page.locator('#prompt').press('Enter')
    await page.getByText('Tried it.').waitFor()
    const card = page.getByRole('article', { name: 'Tool bash' })
    await expect(card.locator('.tag.sandboxed').textContent()).resolves.toBe('sandboxed')
    const note = card.getByRole('status')
    expect(await note.isVisible()).toBe(true)
    expect(await note.textContent()).toMatch(/^The sandbox kept \/etc\/rein-page-probe read-only/)
    expect(existsSync('/etc/rein-page-probe')).toBe(false)
    await context.close()
  })
})
