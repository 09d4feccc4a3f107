import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { newSession, screenshot, send, useBrowser } from './browser.js'


const t = useBrowser()

/** How far the page scrolls sideways (0: it fits the viewport's width). */
const sideways = (page: Page): Promise<number> => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)

/** Tables whose box scrolls sideways (the table is wider than the box), by their aria-label or class. */
const overflowingTables = (page: Page): Promise<string[]> =>
  page.evaluate(() =>
    Array.from(document.querySelectorAll('table'))
      .filter((t) => {
        const box = t.parentElement as HTMLElement
        return box.scrollWidth > box.clientWidth + 1 || t.getBoundingClientRect().width > box.clientWidth + 1
      })
      .map((t) => t.getAttribute('aria-label') ?? t.className),
  )

async function sessionWithSteps(width: number, height: number): Promise<{ page: Page; id: string }> {
  await t.start({
    args: ['--permission-mode', 'bypass'],
    script: [{ toolCalls: [{ name: 'ls', arguments: { path: '.' } }] }, { text: 'Listed the folder, which is empty.' }],
  })
  const page = await t.open({ width, height })
  const id = await newSession(page)
  await send(page, 'What is here?')
  await page.locator('.msg.assistant', { hasText: 'Listed the folder' }).waitFor()
  return { page, id }
}

describe('rein web at phone and desktop widths', () => {
  it('fits a 390 px phone: no page scrolls sideways, the sessions table fits, and the bars above the transcript stay compact', async () => {
    const { page, id } = await sessionWithSteps(390, 844)
    await screenshot(page, 'phone-session')
    expect(await sideways(page)).toBe(0)
    const above = await page.evaluate(() => (document.querySelector('.virtual') as HTMLElement).getBoundingClientRect().top)
    expect(above).toBeLessThan(844 * 0.25)

    await page.goto(`${t.run.origin}/#/`)
    await page.locator('table.sessions tbody tr[data-session]').first().waitFor()
    expect(await sideways(page)).toBe(0)
    expect(await overflowingTables(page)).toEqual([])
    await screenshot(page, 'phone-sessions')

    await page.goto(`${t.run.origin}/#/s/${id}/inspect`)
    await page.locator('table.raw tbody tr').first().waitFor()
    await page.locator('table.steps tbody tr').first().waitFor()
    expect(await sideways(page)).toBe(0)
    // The raw events fit; the ten columns of figures scroll inside their own box, not the page.
    expect(await overflowingTables(page)).not.toContain('Raw events')
  })

  it('opens the sidebar as a drawer on a phone, without sideways scroll, and closes it on choosing a session', async () => {
    const { page, id } = await sessionWithSteps(390, 844)
    const drawer = page.getByRole('navigation', { name: 'Sessions' })
    expect(await drawer.isVisible()).toBe(false)
    await page.getByRole('button', { name: 'Sessions', exact: true }).click()
    await drawer.getByRole('link', { name: /What is here\?/ }).waitFor()
    expect(await sideways(page)).toBe(0)
    await screenshot(page, 'phone-drawer')
    await drawer.getByRole('link', { name: /What is here\?/ }).click()
    await expect.poll(() => drawer.isVisible()).toBe(false)
    expect(page.url()).toContain(id)
  })

  it('fits the inspector at 1280 px: every table within the page, and choosing a step scrolls its request into view', async () => {
    const { page, id } = await sessionWithSteps(1280, 800)
    await page.goto(`${t.run.origin}/#/s/${id}/inspect`)
    await page.locator('table.raw tbody tr').first().waitFor()
    const rows = page.locator('table.steps tbody tr')
    await rows.nth(1).waitFor()
    expect(await sideways(page)).toBe(0)
    expect(await overflowingTables(page)).toEqual([])
    await rows.nth(1).getByRole('link').click()
    const request = page.getByRole('region', { name: /Request of turn 1 step 2/ })
    await request.waitFor()
    await expect
      .poll(() => request.evaluate((el) => el.getBoundingClientRect().top))
      .toBeLessThan(100)
  })
})
