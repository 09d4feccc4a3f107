import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { screenshot, useBrowser } from './browser.js'
import { sandbox } from '../support/cli.js'


const t = useBrowser()

describe('rewind in the web UI', () => {
  it('shows what a step changed with its diff, rewinds to a turn after a dry run, lands in the fork, and undoes the rewind', async () => {
    const box = sandbox()
    writeFileSync(join(box.cwd, 'a.txt'), 'mine\n')
    await t.start({
      box,
      args: ['--permission-mode', 'bypass'],
      script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo agent > a.txt' } }] }, { text: 'Rewrote it.' }],
    })
    const page = await t.open()
    await page.getByRole('button', { name: 'New session' }).click()
    await page.waitForURL(/#\/s\/[0-9a-f-]+$/)
    const source = /#\/s\/([0-9a-f-]+)$/.exec(page.url())?.[1]
    await page.locator('#prompt').fill('rewrite a.txt')
    await page.locator('#prompt').press('Enter')
    await page.getByText('Rewrote it.').waitFor()
    expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('agent\n')

    const changes = page.getByRole('region', { name: 'Files changed in turn 1 step 1' })
    await changes.getByText('Changed these files').waitFor()
    await changes.getByRole('button', { name: 'Show diff' }).click()
    await changes.locator('pre.diff').getByText('+agent').waitFor()
    expect(await changes.locator('pre.diff').innerText()).toContain('-mine')

    await page.getByRole('button', { name: 'Rewind to here (turn 1)' }).click()
    const panel = page.getByRole('dialog', { name: 'Rewind to turn 1' })
    await panel.getByRole('list', { name: 'Files that will change' }).getByText('a.txt').waitFor()
    expect(await panel.innerText()).toContain('put back a.txt')
    await screenshot(page, 'rewind')
    // The dry run changed nothing.
    expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('agent\n')
    await panel.getByRole('button', { name: 'Restore code and conversation' }).click()
    await page.waitForURL((url) => /#\/s\/[0-9a-f-]+$/.test(url.hash) && !url.hash.includes(source as string))
    expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('mine\n')
    // The fork's own log says where it came from.
    await page.getByText('Rewound to turn 1: 1 file restored.').waitFor()

    await page.getByRole('button', { name: 'Undo rewind' }).click()
    await page.getByText(/Undid the rewind to turn 1/).waitFor()
    expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('agent\n')
  })

  it('keeps the rules "Allow always" saved when "Rewind to here" puts the workspace back (issue 34, item 3)', async () => {
    const box = sandbox()
    writeFileSync(join(box.cwd, 'a.txt'), 'mine\n')
    await t.start({
      box,
      script: [
        { toolCalls: [{ name: 'bash', arguments: { command: 'echo one' } }] },
        { toolCalls: [{ name: 'bash', arguments: { command: 'echo agent > a.txt' } }] },
        { text: 'Rewrote it.' },
      ],
    })
    const page = await t.open()
    await page.getByRole('button', { name: 'New session' }).click()
    await page.locator('#prompt').fill('rewrite a.txt')
    await page.locator('#prompt').press('Enter')
    const ask = page.getByRole('alertdialog', { name: 'Permission for bash' })
    await ask.getByRole('button', { name: 'Allow always (Bash(echo one))' }).click()
    await ask.getByText('echo agent > a.txt').first().waitFor()
    await ask.getByRole('button', { name: 'Allow once' }).click()
    await page.getByText('Rewrote it.').waitFor()
    const settings = join(box.cwd, '.rein', 'settings.local.json')
    const saved = readFileSync(settings, 'utf8')
    expect(JSON.parse(saved).permissions.allow).toEqual(['Bash(echo one)'])

    await page.getByRole('button', { name: 'Rewind to here (turn 1)' }).click()
    const panel = page.getByRole('dialog', { name: 'Rewind to turn 1' })
    await panel.getByRole('list', { name: 'Files that will change' }).getByText('a.txt').waitFor()
    // The dry run does not name the settings file: it is never part of a snapshot.
    expect(await panel.innerText()).not.toContain('settings.local.json')
    await panel.getByRole('button', { name: 'Restore code and conversation' }).click()
    await page.getByText('Rewound to turn 1: 1 file restored.').waitFor()
    expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('mine\n')
    expect(readFileSync(settings, 'utf8')).toBe(saved)
  })
})
