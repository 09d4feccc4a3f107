import chalk from 'chalk'
import { cleanup, render } from 'ink-testing-library'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { App } from '../../src/cli/tui/App.js'
import { plainFrame, sessionBanner } from '../../src/cli/tui/first-frame.js'
import { FakeAgent, fakeServices, settle } from './support/fake-agent.js'

/** ink-testing-library's terminal is this wide. */
const COLUMNS = 100

let level: typeof chalk.level
beforeEach(() => {
  level = chalk.level
})
afterEach(() => {
  chalk.level = level
  cleanup()
})

/** The lines ink draws for a new, idle session whose banner is `banner`: the frame the plain one must equal. */
async function inkFrame(banner: string): Promise<string[]> {
  const agent = new FakeAgent('/work/project')
  const ui = render(<App agent={agent.api} services={fakeServices()} onExit={() => {}} initialNotices={[banner]} />)
  await settle()
  return (ui.lastFrame() ?? '').split('\n')
}

describe('the plain first frame', () => {
  const banner = sessionBanner('aaaabbbb-cccc', { cwd: '/work/project' })

  it('is the banner and the empty prompt box exactly as ink draws them, styles included', async () => {
    chalk.level = 1
    const frame = plainFrame(banner, COLUMNS, chalk)
    expect(frame).toBeDefined()
    const lines = frame!.text.replace(/\n$/, '').split('\n')
    expect(lines).toHaveLength(frame!.lines)
    expect((await inkFrame(banner)).slice(0, frame!.lines)).toEqual(lines)
  })

  it('is the same text without colour when the terminal has none', async () => {
    chalk.level = 0
    const frame = plainFrame(banner, COLUMNS, chalk)!
    expect(frame.text).not.toContain('\x1b')
    expect((await inkFrame(banner)).slice(0, frame.lines)).toEqual(frame.text.replace(/\n$/, '').split('\n'))
  })

  it('is not drawn when ink would wrap or measure a line differently', () => {
    expect(plainFrame(sessionBanner('aaaabbbb', { cwd: `/${'deep/'.repeat(30)}project` }), COLUMNS, chalk)).toBeUndefined()
    expect(plainFrame(sessionBanner('aaaabbbb', { cwd: '/work/项目' }), COLUMNS, chalk)).toBeUndefined()
    expect(plainFrame(sessionBanner('aaaabbbb', { cwd: '/w' }), 20, chalk)).toBeUndefined()
  })

  it('names the session the way the banner of every later session does', () => {
    expect(sessionBanner('0123456789abcdef', { cwd: '/p' })).toBe('New session 01234567 in /p. /help lists commands.')
    expect(sessionBanner('0123456789abcdef', { cwd: '/p', resume: 'x' })).toMatch(/^Resumed session 01234567 /)
    expect(sessionBanner('0123456789abcdef', { cwd: '/p', fork: { id: 'x' } })).toMatch(/^Forked into session 01234567 /)
  })
})
