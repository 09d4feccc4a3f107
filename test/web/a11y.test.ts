import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { sandbox } from '../support/cli.js'
import { useBrowser } from './browser.js'
import { inspectedSession } from './inspected-session.js'

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js')

const t = useBrowser()

interface Violation {
  id: string
  impact: string | null
  help: string
  nodes: { target: string[] }[]
}

/** axe-core's serious and critical violations on the page as it stands, as `rule: help (targets)` lines. */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE })
  const violations = await page.evaluate(async () => {
    type Run = (ctx: Document, options: unknown) => Promise<{ violations: Violation[] }>
    const axe = (window as unknown as { axe: { run: Run } }).axe
    // label-content-name-mismatch (a name that lacks the visible text, issue 34) is experimental: off unless asked.
    return (await axe.run(document, { rules: { 'label-content-name-mismatch': { enabled: true } } })).violations
  })
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`)
}

const focusedId = (page: Page): Promise<string> => page.evaluate(() => document.activeElement?.id ?? '')

describe('rein web for keyboard and assistive technology', () => {
  it('has no serious or critical axe violation on the session list and on a session with a reply, a tool and an ask', async () => {
    await t.start({
      script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo hi' } }] }, { text: 'Done. **Bold** and `code`.' }],
    })
    const page = await t.open({ bypassCSP: true })
    expect(await page.locator('h1').count()).toBe(1)
    expect(await seriousViolations(page)).toEqual([])
    await page.getByRole('button', { name: 'New session' }).click()
    await page.locator('#prompt').waitFor()
    await page.locator('#prompt').fill('Run it')
    await page.locator('#prompt').press('Enter')
    const ask = page.getByRole('alertdialog', { name: 'Permission for bash' })
    await ask.waitFor()
    expect(await seriousViolations(page)).toEqual([])
    await ask.getByRole('button', { name: 'Allow once' }).click()
    await page.locator('.msg.assistant', { hasText: 'Done.' }).waitFor()
    expect(await page.locator('h1').count()).toBe(1)
    // The buttons' accessible names begin with the text they show.
    await page.getByRole('button', { name: /^Fork here/ }).first().waitFor()
    expect(await seriousViolations(page)).toEqual([])
  })

  it('has no serious or critical axe violation in the dark theme either (colour contrast), nor with the palette open', async () => {
    await t.start({
      script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo hi' } }] }, { text: 'Done.\n\n```sh\necho hi\n```' }],
    })
    const page = await t.open({ bypassCSP: true, colorScheme: 'dark' })
    expect(await seriousViolations(page)).toEqual([])
    await page.getByRole('button', { name: 'New session' }).click()
    await page.locator('#prompt').fill('Run it')
    await page.locator('#prompt').press('Enter')
    const ask = page.getByRole('alertdialog', { name: 'Permission for bash' })
    await ask.waitFor()
    expect(await seriousViolations(page)).toEqual([])
    await ask.getByRole('button', { name: 'Allow once' }).click()
    await page.locator('.msg.assistant', { hasText: 'Done.' }).waitFor()
    expect(await seriousViolations(page)).toEqual([])
    await page.keyboard.press('Control+k')
    await page.getByRole('dialog', { name: 'Commands' }).getByRole('option').first().waitFor()
    expect(await seriousViolations(page)).toEqual([])
  })

  it('puts focus in the prompt after New session and after a permission answer; Esc cancels; "/" goes to the prompt', async () => {
    await t.start({
      script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'while [ ! -f never ]; do sleep 0.05; done' } }] }],
    })
    const page = await t.open({ bypassCSP: true })
    await page.getByRole('button', { name: 'New session' }).click()
    await page.locator('#prompt').waitFor()
    await expect.poll(() => focusedId(page)).toBe('prompt')
    await page.keyboard.type('Start the long job')
    await page.keyboard.press('Enter')
    const ask = page.getByRole('alertdialog', { name: 'Permission for bash' })
    await ask.getByRole('button', { name: 'Allow once' }).click()
    await page.locator('.tool', { hasText: 'running…' }).waitFor()
    await expect.poll(() => focusedId(page)).toBe('prompt')
    // "/" from outside a text field moves to the prompt without typing a slash.
    await page.getByRole('link', { name: 'Inspector' }).focus()
    await page.keyboard.press('/')
    await expect.poll(() => focusedId(page)).toBe('prompt')
    expect(await page.locator('#prompt').inputValue()).toBe('')
    // In the prompt, "/" is just a character.
    await page.keyboard.type('/x')
    expect(await page.locator('#prompt').inputValue()).toBe('/x')
    await page.keyboard.press('Escape')
    await page.locator('.notice', { hasText: 'Cancelled.' }).waitFor()
    await expect.poll(() => page.getByTestId('state').textContent()).toBe('idle')
    // Esc while idle changes nothing (no request, no error).
    await page.keyboard.press('Escape')
    expect(await page.getByRole('alert').count()).toBe(0)
  })

  it('has no serious or critical axe violation on the inspector of a long session, its steps table scrolled to a chosen step', async () => {
    const box = sandbox()
    const { id, session } = await inspectedSession(box.home, box.cwd, 25, 4)
    const sent = session.events.filter((e) => e.type === 'request/sent')
    const run = await t.start({ box })
    const page = await t.open({ bypassCSP: true, width: 1280, height: 700 })
    await page.goto(`${run.origin}/#/s/${id}/inspect/${sent[70].seq}`)
    await page.getByRole('region', { name: 'Request of turn 18 step 3' }).waitFor()
    await page.locator('table.raw tbody tr').first().waitFor()
    expect(await seriousViolations(page)).toEqual([])
  })
})
