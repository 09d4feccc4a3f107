import { describe, expect, it } from 'vitest'
import { highlightCode, loadHighlighter } from '../../src/cli/tui/code-highlight.js'
import { renderMarkdown } from '../../src/cli/tui/markdown.js'
import { stripAnsi } from '../../src/cli/tui/ansi.js'
import { paint } from '../../src/cli/tui/theme.js'

const [blue, cyan, green, magenta] = ['blue', 'cyan', 'green', 'magenta'].map((c) => (text: string) => paint(c, text))

const CODE = '```ts\nconst answer = 42\n```'

/** The rendered code line (the block's label is dimmed either way, so only the code itself tells). */
const codeLine = (rendered: string): string => rendered.split('\n').find((l) => stripAnsi(l).includes('answer')) ?? ''

describe('code highlighting loaded on demand', () => {
  it('shows code plain until the highlighter has loaded, then highlighted, with the same text', async () => {
    const before = codeLine(renderMarkdown(CODE))
    expect(before).toBe('  const answer = 42')
    await loadHighlighter()
    const after = codeLine(renderMarkdown(CODE))
    expect(after).not.toBe(before)
    expect(stripAnsi(after)).toBe(before)
  })

  it('loads once however often it is asked', async () => {
    const first = loadHighlighter()
    expect(loadHighlighter()).toBe(first)
    await first
  })

  it('colours each run of text once, by its innermost coloured scope, with the characters highlight.js escaped restored', async () => {
    await loadHighlighter()
    expect(highlightCode('const s = `<${x}>`', 'ts')).toBe(`${magenta('const')} s = ${green('`<${x}>`')}`)
    expect(highlightCode('<p class="x">&amp;\'</p>', 'html')).toBe(`${blue('<p ')}${cyan('class')}${blue('=')}${green('"x"')}${blue('>')}&amp;'${blue('</p>')}`)
  })

  it('leaves a language it does not know plain', async () => {
    await loadHighlighter()
    expect(highlightCode('const x = 1', 'no-such-language')).toBeUndefined()
  })
})
