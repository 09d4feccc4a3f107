import stringWidth from 'string-width'
import { describe, expect, it } from 'vitest'
import { stripAnsi } from '../../src/cli/tui/ansi.js'
import { renderMarkdown } from '../../src/cli/tui/markdown.js'
import { fitColumns } from '../../src/cli/tui/markdown-table.js'

const lines = (markdown: string, width?: number) =>
  stripAnsi(renderMarkdown(markdown, width === undefined ? {} : { width })).split('\n')

/** The terminal column of each `│` on a line. */
const bars = (line: string) => {
  const at: number[] = []
  let column = 0
  for (const { segment: char } of new Intl.Segmenter().segment(line)) {
    if (char === '│' || char === '┼') at.push(column)
    column += stringWidth(char)
  }
  return at
}

describe('Markdown tables', () => {
  it('aligns a Chinese and Japanese table in terminal columns, wide characters counted as two', () => {
    const table = ['| 名前 | 説明 | n |', '|---|---|--:|', '| 東京 | 日本の首都です | 1 |', '| Zürich | city 🏔️ | 22 |', '| 北京 | 中国的首都 | 333 |'].join('\n')
    const out = lines(table)
    expect(out).toHaveLength(5)
    const columns = bars(out[0])
    expect(columns).toHaveLength(2)
    for (const line of out) expect(bars(line)).toEqual(columns)
    expect(out[1]).toMatch(/^─+┼─+┼─+$/)
    // Right-aligned numbers end in the same column.
    expect(out.slice(2).map((l) => stringWidth(l))).toEqual([stringWidth(out[2]), stringWidth(out[2]), stringWidth(out[2])])
    expect(out[2]).toContain('東京')
    expect(out[4].endsWith('333')).toBe(true)
  })

  it('wraps cells to fit the terminal width and keeps the columns lined up, never splitting a wide character', () => {
    const long = '这是一个很长的说明文字，需要在窄的终端里换行显示才不会超出屏幕宽度'
    const table = `| 键 | 说明 |\n|---|---|\n| a | ${long} |\n| b | short |`
    const out = lines(table, 30)
    for (const line of out) expect(stringWidth(line)).toBeLessThanOrEqual(30)
    const columns = bars(out[0])
    for (const line of out) expect(bars(line)).toEqual(columns)
    expect(out.join('').replace(/[\s│─┼ab]/g, '')).toContain(long.slice(0, 5))
    expect(out.map((l) => l.split('│')[1]?.trim() ?? '').join('')).toContain(long)
    expect(out.join('\n')).not.toContain('\ufffd')
  })

  it('keeps narrow columns whole and shares the rest among the wide ones', () => {
    expect(fitColumns([3, 40, 40], 50)).toEqual([3, 24, 23])
    expect(fitColumns([3, 4], 50)).toEqual([3, 4])
    expect(fitColumns([30, 30], 2)).toEqual([1, 1])
  })

  it('keeps styling inside cells without counting it as width', () => {
    const out = renderMarkdown('| **粗体** | `code` |\n|---|---|\n| x | y |')
    const plain = stripAnsi(out).split('\n')
    expect(bars(plain[0])).toEqual(bars(plain[2]))
    expect(out).toContain('\x1b[1m')
  })
})
