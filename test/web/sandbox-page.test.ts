import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { newSession, send, useBrowser } from './browser.js'
import { sandbox as testBox } from '../support/cli.js'
import { requireBwrap } from '../sandbox/bwrap-required.js'

// The page in a real browser, with the sandbox on in the user's settings: a bash card carries the `sandboxed` tag, and
// the sandbox's note stays in sight while the card is collapsed.

const bwrap = requireBwrap()

const t = useBrowser()

describe.runIf(bwrap.available)('the page shows a sandboxed command', () => {
  it('tags the card sandboxed and shows what the sandbox stopped', async () => {
    const box = testBox()
    writeFileSync(join(box.home, 'settings.json'), JSON.stringify({ sandbox: { enabled: true } }))
    await t.start({
      box,
      args: ['--permission-mode', 'default'],
      script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'touch /etc/rein-page-probe' } }] }, { text: 'Tried it.' }],
    })
    const page = await t.open()
    await newSession(page)
    await send(page, 'try it')
    await page.getByText('Tried it.').waitFor()
    const card = page.getByRole('article', { name: 'Tool bash' })
    await expect(card.locator('.tag.sandboxed').textContent()).resolves.toBe('sandboxed')
    const note = card.getByRole('status')
    expect(await note.isVisible()).toBe(true)
    expect(await note.textContent()).toMatch(/^The sandbox kept \/etc\/rein-page-probe read-only/)
    expect(existsSync('/etc/rein-page-probe')).toBe(false)
  })
})
