import { describe, expect, it } from 'vitest'
import { sandbox } from '../support/cli.js'
import { useBrowser } from './browser.js'
import { inspectedSession } from './inspected-session.js'

const t = useBrowser()

/** A served session of 25 turns of 4 steps (100 requests, all logged) open in a 1280×700 page. */
async function longSession() {
  const box = sandbox()
  const { id, session } = await inspectedSession(box.home, box.cwd, 25, 4)
  const sent = session.events.filter((e) => e.type === 'request/sent')
  const run = await t.start({ box })
  const page = await t.open({ width: 1280, height: 700 })
  return { run, page, id, sent }
}

describe('the inspector’s steps table on a long session', () => {
  it('choosing a step scrolls to it: opened on the last step, its row is drawn highlighted within the table’s box, and only the rows near it are drawn', async () => {
    const { run, page, id, sent } = await longSession()
    const last = sent[sent.length - 1]
    await page.goto(`${run.origin}/#/s/${id}/inspect/${last.seq}`)
    await page.getByRole('region', { name: 'Request of turn 25 step 4' }).waitFor()
    const chosen = page.locator('table.steps tbody tr.chosen')
    await expect(chosen.getAttribute('data-seq')).resolves.toBe(String(last.seq))
    const inBox = await chosen.evaluate((row) => {
      const r = row.getBoundingClientRect()
      const b = (row.closest('.steps-scroll') as HTMLElement).getBoundingClientRect()
      return r.top >= b.top && r.bottom <= b.bottom
    })
    expect(inBox).toBe(true)
    const drawn = await page.locator('table.steps tbody tr[data-seq]').count()
    expect(drawn).toBeGreaterThan(0)
    expect(drawn).toBeLessThan(sent.length)
    await expect(page.locator('table.steps').getAttribute('aria-rowcount')).resolves.toBe(String(sent.length + 2))
    await expect(chosen.getAttribute('aria-rowindex')).resolves.toBe(String(sent.length + 1))
  })

  it('counts every step in the totals row, drawn or not: all requests and all matching digests', async () => {
    const { run, page, id, sent } = await longSession()
    await page.goto(`${run.origin}/#/s/${id}/inspect`)
    const totals = page.locator('table.steps tfoot tr[data-totals]')
    await totals.waitFor()
    await expect(totals.textContent()).resolves.toContain(`${sent.length} requests`)
    await expect(totals.locator('[data-matching]').getAttribute('data-matching')).resolves.toBe(String(sent.length))
    await expect(totals.isVisible()).resolves.toBe(true)
  })

  it('moves between steps with ↑ and ↓ on a step’s link, drawing a step scrolled out of view, and Enter chooses it', async () => {
    const { run, page, id, sent } = await longSession()
    await page.goto(`${run.origin}/#/s/${id}/inspect`)
    const first = page.locator(`table.steps tr[data-seq="${sent[0].seq}"] a`)
    await first.focus()
    for (let i = 0; i < 60; i++) await page.keyboard.press('ArrowDown')
    const focusedSeq = () => page.evaluate(() => document.activeElement?.closest('tr')?.getAttribute('data-seq'))
    await expect.poll(focusedSeq).toBe(String(sent[60].seq))
    await page.keyboard.press('ArrowUp')
    await expect.poll(focusedSeq).toBe(String(sent[59].seq))
    await page.keyboard.press('Enter')
    await page.getByRole('region', { name: 'Request of turn 15 step 4' }).waitFor()
    await expect(page.locator('table.steps tbody tr.chosen').getAttribute('data-seq')).resolves.toBe(String(sent[59].seq))
  })
})
