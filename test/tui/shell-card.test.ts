import { describe, expect, it } from 'vitest'
import { expansionOf } from '../../src/cli/tui/expand.js'
import { Transcript } from '../../src/cli/tui/transcript.js'
import { toolLookup } from '../../src/frontend/render/index.js'
import { shellContextText } from '../../src/frontend/shell-command.js'
import type { SessionEvent } from '../../src/session/events.js'

const output = [...Array.from({ length: 12 }, (_, i) => `line ${i + 1}`), '[exit code: 2]'].join('\n')
const source = { kind: 'user', via: 'shell', command: 'make check', exitCode: 2 }
const content = [{ type: 'text' as const, text: shellContextText('make check', output) }]

const events: SessionEvent[] = [
  { seq: 0, time: 1000, type: 'inbox/queued', data: { id: 'sh1', verb: 'inject', content, source } },
  { seq: 1, time: 2000, type: 'inbox/dequeued', data: { id: 'sh1', reason: 'delivered' } },
  { seq: 2, time: 2001, type: 'context/message', data: { id: 'sh1', content, source }, surfaceOp: 'append' },
] as SessionEvent[]

describe('a ! command in the transcript', () => {
  it('is one card from its queued event: the command, its exit code, the output tail; its delivery adds nothing', () => {
    const transcript = new Transcript(toolLookup(), '/work')
    transcript.load(events)
    const { finished, queued } = transcript.snapshot()
    expect(queued).toEqual([])
    expect(finished).toHaveLength(1)
    const item = finished[0]
    expect(item.kind).toBe('tool')
    if (item.kind !== 'tool') return
    expect(item.card).toMatchObject({ name: '!', target: 'make check', status: 'error', summary: 'exit code 2', hiddenLines: 8 })
    expect(item.card.tail).toEqual(['line 9', 'line 10', 'line 11', 'line 12', '[exit code: 2]'])
  })

  it('expands (Ctrl+O) to the whole output read back from the log, without the $ line', () => {
    const transcript = new Transcript(toolLookup(), '/work')
    transcript.load(events)
    const item = transcript.lastCollapsed()
    expect(item?.kind).toBe('tool')
    const expansion = item ? expansionOf(item, events) : undefined
    expect(expansion?.text).toBe(output)
    expect(expansion?.title).toBe('! make check · output')
  })

  it('the model reads plain text: $ command, then the output', () => {
    expect(shellContextText('ls -a', 'a\nb\n[exit code: 0]')).toBe('$ ls -a\na\nb\n[exit code: 0]')
  })
})
