import { describe, expect, it } from 'vitest'
import { mentionedFiles, promptContent } from '../../src/cli/tui/attachments.js'
import { blocksText, typedText } from '../../src/cli/tui/transcript.js'

describe('what a prompt attaches', () => {
  it('takes each @path once, trailing punctuation off, and absolute image paths with or without @', () => {
    const files = new Set(['src/a.ts'])
    expect(mentionedFiles('fix @src/a.ts, then @src/a.ts again; see /tmp/shot.PNG and @docs/x.md.', files)).toEqual([
      'src/a.ts',
      '/tmp/shot.PNG',
      'docs/x.md',
    ])
    expect(mentionedFiles('mail me@example.com about /etc/passwd', files)).toEqual([])
  })

  it('keeps the typed text first, and shows attachments in the transcript as one line each, never their content', () => {
    const blocks = promptContent('look at @a.txt and /s.png', [
      { kind: 'text', path: 'a.txt', text: 'SECRET CONTENT' },
      { kind: 'image', path: '/s.png', mimeType: 'image/png', data: 'AAAA' },
      { kind: 'skipped', path: 'b.txt', reason: 'a rule covers it' },
    ])
    expect(blocks.map((b) => b.type)).toEqual(['text', 'text', 'text', 'image'])
    expect(blocks[1]).toEqual({ type: 'text', text: 'Attached file @a.txt:\nSECRET CONTENT' })
    expect(blocksText(blocks)).toBe('look at @a.txt and /s.png\n⎘ attached @a.txt\n⎘ attached @/s.png (image/png)')
    expect(typedText(blocks)).toBe('look at @a.txt and /s.png')
  })
})
