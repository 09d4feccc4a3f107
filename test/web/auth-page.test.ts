import { describe, expect, it } from 'vitest'
import { useBrowser } from './browser.js'
import { raw } from './support.js'

const t = useBrowser()

describe('signing in to rein web', () => {
  it('keeps two servers on different ports signed in side by side in one browser profile', async () => {
    const a = await t.start()
    const b = await t.start()
    const pageA = await t.open({ run: a })
    const context = t.context
    const pageB = await context.newPage()
    await pageB.goto(b.address)
    await pageB.getByRole('button', { name: 'New session' }).waitFor()
    // Reloading A's page after B signed in: A's cookie is still there, under its own name.
    await pageA.goto(`${a.origin}/#/`)
    await pageA.reload()
    await pageA.getByRole('button', { name: 'New session' }).waitFor()
    expect(await pageA.getByRole('alert').count()).toBe(0)
    const names = (await context.cookies()).map((c) => c.name).sort()
    expect(names).toEqual([`rein_web_${new URL(a.origin).port}`, `rein_web_${new URL(b.origin).port}`].sort())
    // Each server accepts only its own cookie.
    const cookieOfB = (await context.cookies()).find((c) => c.name === `rein_web_${new URL(b.origin).port}`)
    const crossed = await raw(a.origin, '/api/sessions', { headers: { cookie: `rein_web_${new URL(a.origin).port}=${cookieOfB?.value}` } })
    expect(crossed.status).toBe(401)
  })

  it('signs a signed-out tab in when the printed address is pasted into it (only the fragment changes)', async () => {
    const run = await t.start()
    const page = await t.open({ signIn: false })
    await page.goto(run.origin)
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/lacks the rein web token/)
    await page.goto(run.address)
    await page.getByRole('button', { name: 'New session' }).waitFor()
    expect(page.url()).not.toContain('token')
    expect(await page.getByRole('alert').count()).toBe(0)
  })

  it('stays signed out when a wrong token is pasted, saying so in one sentence', async () => {
    const run = await t.start()
    const page = await t.open({ signIn: false })
    await page.goto(run.origin)
    await page.getByRole('alert').waitFor()
    await page.goto(`${run.origin}/#token=${'0'.repeat(64)}`)
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/not this server.s token/)
    expect(await page.getByRole('button', { name: 'New session' }).count()).toBe(0)
  })
})
