import { existsSync, mkdirSync } from 'node:fs'
import { resolve } from 'node:path'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll } from 'vitest'
import { startWeb, type WebRun } from './support.js'

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

export interface OpenOptions {
  /** The server to open (default: the test's latest `start`). */
  run?: WebRun
  width?: number
  height?: number
  colorScheme?: 'light' | 'dark'
  /** Only for tests that inject a script (axe-core): the page's own CSP forbids it, which is its point. */
  bypassCSP?: boolean
  /** Go to the printed address and wait until the page is signed in (default true). */
  signIn?: boolean
}

/**
 * The lifecycle every browser test file shares: one Chromium per file, and per test the servers it `start`s and the
 * profiles it `open`s, all closed after the test whether it passed or not. Call once at the top of a test file.
 */
export interface BrowserTests {
  readonly browser: Browser
  /** The latest server `start` gave in this test. */
  readonly run: WebRun
  /** The latest profile `open` gave in this test. */
  readonly context: BrowserContext
  start(options?: Parameters<typeof startWeb>[0]): Promise<WebRun>
  /** A fresh browser profile on the page, past the token exchange unless `signIn: false`. */
  open(options?: OpenOptions): Promise<Page>
}

export function useBrowser(): BrowserTests {
  let browser: Browser | undefined
  const runs: WebRun[] = []
  const contexts: BrowserContext[] = []
  beforeAll(async () => {
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser?.close()
  })
  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close()
    for (const run of runs.splice(0)) await run.stop()
  })
  const latest = <T>(list: T[], what: string): T => {
    const last = list[list.length - 1]
    if (!last) throw new Error(`no ${what} in this test yet`)
    return last
  }
  return {
    get browser() {
      if (!browser) throw new Error('Chromium is not launched yet (use it inside a test)')
      return browser
    },
    get run() {
      return latest(runs, 'server started')
    },
    get context() {
      return latest(contexts, 'page opened')
    },
    async start(options) {
      const run = await startWeb(options)
      runs.push(run)
      return run
    },
    async open(options = {}) {
      const run = options.run ?? latest(runs, 'server started')
      const context = await this.browser.newContext({
        viewport: { width: options.width ?? 1200, height: options.height ?? 800 },
        colorScheme: options.colorScheme,
        bypassCSP: options.bypassCSP,
      })
      contexts.push(context)
      const page = await context.newPage()
      if (options.signIn === false) return page
      await page.goto(run.address)
      await page.getByRole('button', { name: 'New session' }).first().waitFor()
      return page
    },
  }
}

/** Starts a session from the page and waits for its prompt; its id. */
export async function newSession(page: Page): Promise<string> {
  const before = page.url()
  await page.getByRole('button', { name: 'New session' }).first().click()
  await page.waitForURL((url) => url.href !== before && /#\/s\/[0-9a-f-]+$/.test(url.hash))
  await page.locator('#prompt').waitFor()
  return /#\/s\/([0-9a-f-]+)$/.exec(page.url())?.[1] as string
}

/** Types `text` into the prompt and presses Enter. */
export async function send(page: Page, text: string): Promise<void> {
  await page.locator('#prompt').fill(text)
  await page.locator('#prompt').press('Enter')
}
