import { existsSync, mkdirSync } from 'node:fs'
import { resolve } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'

/**
 * The Chromium that Debian packages (`apt-get install chromium`, as `.ci/run` does), or `CHROMIUM_PATH`. The browser
 * tests need a real browser: without one they fail with this sentence rather than pass without testing anything.
 */
export function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((p): p is string => !!p)
  const found = candidates.find((p) => existsSync(p))
  if (!found) throw new Error('No Chromium found: install it (apt-get install -y chromium) or set CHROMIUM_PATH to its executable.')
  return found
}

export async function launchBrowser(): Promise<Browser> {
  // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
  return chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] })
}

const SHOTS = resolve(import.meta.dirname, '../../docs/web')

/**
 * Saves a screenshot into docs/web when `REIN_WEB_SCREENSHOTS=1` (how the docs' pictures are made: see docs/web.md);
 * otherwise does nothing, so a test run leaves the worktree unchanged.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.REIN_WEB_SCREENSHOTS !== '1') return
  mkdirSync(SHOTS, { recursive: true })
  await page.screenshot({ path: resolve(SHOTS, `${name}.png`) })
}
