import { cleanup, render } from 'ink-testing-library'
import { afterEach, describe, expect, it } from 'vitest'
import { stripAnsi } from '../../src/cli/tui/ansi.js'
import * as ed from '../../src/cli/tui/editor-state.js'
import { FirstRun } from '../../src/cli/tui/FirstRun.js'
import { tailToFit } from '../../src/cli/tui/LiveView.js'
import { renderMarkdown } from '../../src/cli/tui/markdown.js'
import { contextReport, surfaceOf } from '../../src/cli/tui/session-reports.js'
import { parseSlash, suggestCommand } from '../../src/cli/tui/slash-commands.js'
import { forkSeqBefore } from '../../src/frontend/commands/session-commands.js'
import { appendTail, describeCall, toolLookup } from '../../src/frontend/render/index.js'

const tools = toolLookup()
const toolCardTarget = (name: string, args: string): string => describeCall(tools(name), name, args, process.cwd()).subject
import type { SessionEvent } from '../../src/session/events.js'

afterEach(() => cleanup())

describe('the editor state', () => {
  it('moves through history with Up and returns to the draft with Down', () => {
    let s = ed.insert(ed.emptyEditor(['one', 'two']), 'draft')
    s = ed.moveUp(s)
    expect(s.text).toBe('two')
    s = ed.moveUp(s)
    expect(s.text).toBe('one')
    s = ed.moveDown(ed.moveDown(s))
    expect(s.text).toBe('draft')
  })

  it('moves between lines of a multi-line prompt before touching history', () => {
    let s = ed.insert(ed.emptyEditor(['old']), 'ab\ncd')
    s = ed.moveUp(s)
    expect(s.text).toBe('ab\ncd')
    expect(s.cursor).toBe(2)
  })

  it('turns pasted carriage returns into newlines', () => {
    expect(ed.insert(ed.emptyEditor(), 'a\r\nb\rc').text).toBe('a\nb\nc')
  })

  it('completes an @mention and ends it with a space', () => {
    const s = ed.completeMention(ed.insert(ed.emptyEditor(), 'see @sr'), 'src/main.ts')
    expect(s.text).toBe('see @src/main.ts ')
    expect(ed.mentionAtCursor(ed.insert(ed.emptyEditor(), 'mail a@b'))).toBeUndefined()
  })
})

describe('markdown', () => {
  it('renders emphasis, code, lists and links as terminal text', () => {
    const out = stripAnsi(renderMarkdown('# Title\n\nSome **bold** and `a < b`.\n\n- one\n- two\n\n[docs](https://x.dev)\n\n```ts\nconst a = 1\n```'))
    expect(out).toContain('Title')
    expect(out).toContain('Some bold and a < b.')
    expect(out).toContain('• one\n• two')
    expect(out).toContain('docs (https://x.dev)')
    expect(out).toContain('  const a = 1')
  })

  it('never throws on odd input', () => {
    for (const text of ['', '```', '**', '<div>', '| a |\n|---|\n| b |', '```nosuchlanguage\nx\n```']) {
      expect(() => renderMarkdown(text)).not.toThrow()
    }
  })
})

describe('slash commands', () => {
  it('parses a command and its argument', () => {
    expect(parseSlash('/compact  focus on tests ')).toEqual({ name: 'compact', arg: 'focus on tests' })
    expect(parseSlash('not a command')).toBeUndefined()
    expect(parseSlash('/')).toBeUndefined()
  })

  it('suggests the closest command for a typo', () => {
    expect(suggestCommand('reusme')).toBe('resume')
    expect(suggestCommand('hlep')).toBe('help')
    expect(suggestCommand('zzzzzzzz')).toBeUndefined()
  })
})

describe('tool cards', () => {
  it('names the target from the arguments and tolerates arguments that are not JSON', () => {
    expect(toolCardTarget('bash', '{"command":"npm test\\nnpm run lint"}')).toBe('npm test …')
    expect(toolCardTarget('edit', '{"file_path":"src/a.ts"}')).toBe('src/a.ts')
    expect(toolCardTarget('x', 'not json')).toBe('not json')
    expect(toolCardTarget('x', '[]')).toBe('')
  })

  it('keeps the last lines of streamed output, joining partial lines', () => {
    expect(appendTail(['a', 'pa'], 'rt\nb\nc\nd\ne\nf')).toEqual(['b', 'c', 'd', 'e', 'f'])
  })
})

describe('the live area', () => {
  it('keeps only the last lines that fit, counting wrapped lines', () => {
    expect(tailToFit('1\n2\n3\n4', 2, 80)).toBe('3\n4')
    expect(tailToFit(`short\n${'x'.repeat(100)}`, 2, 50)).toBe('x'.repeat(100))
  })
})

function ev(seq: number, type: string, data: unknown, surfaceOp?: unknown): SessionEvent {
  return { seq, time: seq, type, data, ...(surfaceOp ? { surfaceOp } : {}) } as SessionEvent
}

describe('session reports', () => {
  it('applies a replace to the surface and groups /context by producer', () => {
    const events = [
      ev(0, 'request/header', { reason: 'start', config: { model: 'm', effort: 'high' }, system: 'x'.repeat(400), tools: [] }),
      ev(1, 'user/message', { id: 'a', content: [{ type: 'text', text: 'y'.repeat(40) }], source: { kind: 'user' } }, 'append'),
      ev(2, 'context/message', { id: 'b', content: [{ type: 'text', text: 'z'.repeat(80) }], source: { kind: 'workspace-context' } }, 'append'),
      ev(3, 'context/message', { id: 'c', content: [{ type: 'text', text: 'summary' }], source: { kind: 'compaction' } }, { op: 'replace', start: 1, end: 2 }),
    ]
    expect(surfaceOf(events).map((e) => e.seq)).toEqual([3])
    const report = contextReport(events)
    expect(report).toContain('100  system prompt')
    expect(report).toContain('context · compaction')
    expect(report).not.toContain('workspace-context')
  })

  it('forks just before the turn that held the chosen prompt', () => {
    const events = [
      ev(0, 'turn/start', { turn: 1 }),
      ev(1, 'user/message', {}),
      ev(2, 'turn/end', { turn: 1, reason: 'completed' }),
      ev(3, 'turn/start', { turn: 2 }),
      ev(4, 'step/start', { turn: 2, step: 1 }),
      ev(5, 'user/message', {}),
    ]
    expect(forkSeqBefore(events, 5)).toBe(2)
    expect(forkSeqBefore(events, 1)).toBeUndefined()
  })

  it('forks before a queued prompt that was still waiting, so the fork does not send it again', () => {
    const queued = (seq: number, id: string) => ev(seq, 'inbox/queued', { id, verb: 'followUp', content: [], source: { kind: 'user' } })
    const dequeued = (seq: number, id: string) => ev(seq, 'inbox/dequeued', { id, reason: 'delivered' })
    const first = [queued(0, 'a'), ev(1, 'turn/start', { turn: 1 }), ev(2, 'user/message', {}), dequeued(3, 'a')]
    expect(forkSeqBefore(first, 2)).toBeUndefined()
    const events = [
      ...first,
      ev(4, 'turn/end', { turn: 1, reason: 'completed' }),
      queued(5, 'b'),
      ev(6, 'turn/start', { turn: 2 }),
      ev(7, 'user/message', {}),
      dequeued(8, 'b'),
    ]
    expect(forkSeqBefore(events, 7)).toBe(4)
  })
})

describe('the first-run screen', () => {
  it('explains the key, the owner-only credentials file and the demo', () => {
    const ui = render(<FirstRun credentialsFile="/home/me/.rein/credentials" />)
    const screen = stripAnsi(ui.lastFrame() ?? '')
    expect(screen).toContain('DEEPSEEK_API_KEY')
    expect(screen).toContain('/home/me/.rein/credentials')
    expect(screen).toContain('readable only by you')
    expect(screen).toContain('rein demo')
  })
})
