import { describe, expect, it } from 'vitest'
import { loadHighlighter } from '../../src/cli/tui/code-highlight.js'
import { renderMarkdown } from '../../src/cli/tui/markdown.js'
import { stripAnsi } from '../../src/cli/tui/ansi.js'

const CODE = '```ts\nconst answer = 42\n```'

/** The rendered code line (the block's label is dimmed either way, so only the code itself tells). */
const codeLine = (rendered: string): string => rendered.split('\n').find((l) => stripAnsi(l).includes('answer')) ?? ''

describe('code highlighting loaded on demand', () => {
  it('shows code plain until the highlighter has loaded, then highlighted, with the same text', async () => {
    const before = codeLine(renderMarkdown(CODE))
    expect(before).toBe('  const answer = 42')
    // cli-highlight colours through its own chalk, which reads FORCE_COLOR once, when it loads (here, on demand).
    const saved = process.env.FORCE_COLOR
    process.env.FORCE_COLOR = '1'
    try {
      await loadHighlighter()
    } finally {
      if (saved === undefined) delete process.env.FORCE_COLOR
      else process.env.FORCE_COLOR = saved
    }
    const after = codeLine(renderMarkdown(CODE))
    expect(after).not.toBe(before)
    expect(stripAnsi(after)).toBe(before)
  })

  it('loads once however often it is asked', async () => {
    const first = loadHighlighter()
    expect(loadHighlighter()).toBe(first)
    await first
  })
})
