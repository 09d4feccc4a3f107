import { describe, expect, it } from 'vitest'
import { sandbox } from '../support/cli.js'
import { useBrowser } from './browser.js'
import { inspectedSession } from './inspected-session.js'

const t = useBrowser()

describe('the inspector page on a long request', () => {
  it('shows a chosen step’s newest messages with those new in the step marked, loads earlier ones on request, and offers the exact body as a download', async () => {
    const box = sandbox()
    // 10 turns of 4 steps (8 messages a turn): the last request holds 79 messages, 2 of them new in its step.
    const { id, session } = await inspectedSession(box.home, box.cwd, 10, 4)
    const sent = session.events.filter((e) => e.type === 'request/sent')
    const last = sent[sent.length - 1]
    const run = await t.start({ box })
    const page = await t.open()
    await page.goto(`${run.origin}/#/s/${id}/inspect/${last.seq}`)
    const request = page.getByRole('region', { name: 'Request of turn 10 step 4' })
    const items = request.locator('ol.messages > li')
    await items.last().waitFor()
    await expect(items.count()).resolves.toBe(50)
    await expect(request.locator('[data-message-range]').textContent()).resolves.toBe('Messages 30–79 of 79; 2 new in this step')
    await expect(request.locator('li[data-new]').evaluateAll((li) => li.map((l) => l.getAttribute('data-index')))).resolves.toEqual(['77', '78'])
    await expect(request.textContent()).resolves.toContain('matches the log')

    await request.getByRole('button', { name: 'Show 29 earlier messages' }).click()
    await expect.poll(() => items.count()).toBe(79)
    await expect(items.first().getAttribute('data-event')).resolves.toBe('user/message')
    await expect(request.getByRole('button', { name: /earlier messages/ }).count()).resolves.toBe(0)

    const link = request.getByRole('link', { name: /Download the exact body/ })
    await expect(link.getAttribute('href')).resolves.toBe(`/api/sessions/${id}/requests/${last.seq}/body`)
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()])
    expect(download.suggestedFilename()).toBe(`rein-${id}-request-${last.seq}.json`)
  })
})
