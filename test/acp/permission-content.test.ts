import { describe, expect, it } from 'vitest'
import { questionContent } from '../../src/acp/permission.js'

// What `session/request_permission` carries inside its tool call (docs/acp.md): the diff, or the whole command.
describe('a permission request’s content', () => {
  it('carries an edit as ACP diff content, then the reason', () => {
    const content = questionContent({
      title: 'Edit a.txt',
      reason: 'edit is not allowed by a rule.',
      change: { path: '/p/a.txt', shown: 'a.txt', oldText: 'one\n', newText: 'ONE\n', diff: '@@ -1 +1 @@\n-one\n+ONE\n' },
    })
    expect(content).toEqual([
      { type: 'diff', path: '/p/a.txt', oldText: 'one\n', newText: 'ONE\n' },
      { type: 'content', content: { type: 'text', text: 'edit is not allowed by a rule.' } },
    ])
  })

  it('carries the whole command fenced, with a fence longer than any backtick run in it', () => {
    const command = `echo \`\`\`\n${'y'.repeat(3000)}`
    const [first] = questionContent({ title: 'x', reason: '', command })
    expect(first).toEqual({ type: 'content', content: { type: 'text', text: `\`\`\`\`sh\n${command}\n\`\`\`\`` } })
  })
})
