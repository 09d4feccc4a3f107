import { afterEach, describe, expect, it } from 'vitest'
import { renderMarkdown } from '../../src/cli/tui/markdown.js'
import { applyThemeSetting, resetTerminalState, takeReports, terminalState, watchTerminalReports } from '../../src/cli/tui/terminal-reports.js'
import { chooseTheme, paint, setTheme, takeBackgroundReply, theme, themeOfColorFgBg } from '../../src/cli/tui/theme.js'
import { PassThrough } from 'node:stream'

afterEach(() => {
  resetTerminalState()
  setTheme('dark', 'auto')
})

describe('the theme', () => {
  it('reads a light or dark background from a reply to the OSC 11 query, and keeps the keys typed around it', () => {
    expect(takeBackgroundReply('ab\x1b]11;rgb:ffff/ffff/ffff\x07cd')).toEqual({ theme: 'light', rest: 'abcd' })
    expect(takeBackgroundReply('\x1b]11;rgb:1e1e/1e1e/1e1e\x1b\\')).toEqual({ theme: 'dark', rest: '' })
    expect(takeBackgroundReply('\x1b]11;rgb:fd/f6/e3\x07').theme).toBe('light')
    expect(takeBackgroundReply('plain text')).toEqual({ rest: 'plain text' })
    expect(takeBackgroundReply('\x1b]11;rgb:zz/00/00\x07').theme).toBeUndefined()
  })

  it('reads COLORFGBG, and a fixed setting wins over anything detected', () => {
    expect(themeOfColorFgBg('0;15')).toBe('light')
    expect(themeOfColorFgBg('15;default;0')).toBe('dark')
    expect(themeOfColorFgBg('garbage')).toBeUndefined()
    expect(themeOfColorFgBg(undefined)).toBeUndefined()
    expect(chooseTheme('auto', { COLORFGBG: '0;7' }, 'dark')).toBe('light')
    expect(chooseTheme('auto', {}, 'light')).toBe('light')
    expect(chooseTheme('auto', {}, undefined)).toBe('dark')
    expect(chooseTheme('dark', { COLORFGBG: '0;15' }, 'light')).toBe('dark')
  })

  it('colours Markdown from the theme in use: basic colours when dark, darker 256-colour shades when light', () => {
    setTheme('dark')
    expect(renderMarkdown('use `npm test`')).toContain(paint('cyan', 'npm test'))
    setTheme('light')
    expect(renderMarkdown('use `npm test`')).toContain('\x1b[38;5;25mnpm test\x1b[39m')
    expect(theme().strong).toBe('black')
  })

  it('switches to the background the terminal reports later when the setting is auto, not when it is fixed', () => {
    applyThemeSetting('auto', {})
    expect(theme().name).toBe('dark')
    takeReports('\x1b]11;rgb:ffff/ffff/ffff\x07')
    expect(theme().name).toBe('light')
    applyThemeSetting('dark', {})
    takeReports('\x1b]11;rgb:ffff/ffff/ffff\x07')
    expect(theme().name).toBe('dark')
  })
})

describe('terminal reports on stdin', () => {
  it('takes focus reports and the background reply out of what readers get, and remembers them', () => {
    const stdin = new PassThrough() as unknown as NodeJS.ReadStream
    const unwatch = watchTerminalReports(stdin)
    ;(stdin as unknown as PassThrough).write(Buffer.from('hi\x1b[O\x1b]11;rgb:0000/0000/0000\x07 世界'))
    const chunk = stdin.read() as Buffer
    expect(chunk.toString('utf8')).toBe('hi 世界')
    expect(terminalState()).toEqual({ focused: false, background: 'dark' })
    ;(stdin as unknown as PassThrough).write('\x1b[I')
    expect(stdin.read()).toBeNull()
    expect(terminalState().focused).toBe(true)
    unwatch()
    ;(stdin as unknown as PassThrough).write('\x1b[I')
    expect(String(stdin.read())).toBe('\x1b[I')
  })
})
