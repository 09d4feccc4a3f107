import { describe, expect, it } from 'vitest'
import { TranscriptModel } from '../../web/src/transcript.js'
import { markdownHtml, stableEnd, streamingMarkdownHtml } from '../../web/src/markdown.js'
import { matchingCommands } from '../../web/src/command-match.js'

const text = (t: string) => [{ type: 'text', text: t }]

describe('the page’s transcript', () => {
  it('marks injected context, steering and compaction summaries as such, with their producer', () => {
    const m = new TranscriptModel()
    m.apply({ seq: 0, time: 0, type: 'user/message', data: { content: text('hi'), source: { kind: 'user' } } })
    m.apply({ seq: 1, time: 0, type: 'context/message', data: { content: text('<system-reminder>x</system-reminder>'), source: { kind: 'runtime-context' } } })
    m.apply({ seq: 2, time: 0, type: 'steering/message', data: { content: text('go left'), source: { kind: 'user' } } })
    m.apply({ seq: 3, time: 0, type: 'context/message', data: { content: text('summary'), source: { kind: 'compaction' } }, surfaceOp: { op: 'replace', start: 0, end: 2 } })
    expect(m.items.map((i) => (i.kind === 'user' || i.kind === 'context' || i.kind === 'steering' ? [i.kind, i.source, i.summary, i.text] : i.kind))).toEqual([
      ['user', 'user', false, 'hi'],
      ['context', 'runtime-context', false, '<system-reminder>x</system-reminder>'],
      ['steering', 'user', false, 'go left'],
      ['context', 'compaction', true, 'summary'],
    ])
  })

  it('marks a command a cancel stopped as cancelled, and a command that failed by itself as failed only', () => {
    const m = new TranscriptModel()
    m.apply({ seq: 0, time: 0, type: 'tool/call', data: { callId: 'c1', name: 'bash', arguments: '{}' } })
    m.apply({ seq: 1, time: 0, type: 'tool/result', data: { callId: 'c1', content: text('partial\n[cancelled; the command and its children were killed]'), isError: true } })
    m.apply({ seq: 2, time: 0, type: 'tool/call', data: { callId: 'c2', name: 'bash', arguments: '{}' } })
    m.apply({ seq: 3, time: 0, type: 'tool/result', data: { callId: 'c2', content: text('exit code 1: cancelled is just a word here'), isError: true } })
    expect(m.items.map((i) => i.kind === 'tool' && [i.callId, i.isError, i.cancelled === true])).toEqual([
      ['c1', true, true],
      ['c2', true, false],
    ])
  })

  it('matches palette commands by name and alias first, then by their help line', () => {
    const commands = [
      { name: 'compact', aliases: [], help: 'Summarise the conversation' },
      { name: 'help', aliases: ['?'], help: 'List the commands' },
      { name: 'model', aliases: [], help: 'Switch the model' },
    ]
    expect(matchingCommands(commands, '/co').map((c) => c.name)).toEqual(['compact', 'help'])
    expect(matchingCommands(commands, '/mo').map((c) => c.name)).toEqual(['model'])
    expect(matchingCommands(commands, 'commands').map((c) => c.name)).toEqual(['help'])
    expect(matchingCommands(commands, '?').map((c) => c.name)).toEqual(['help'])
    expect(matchingCommands(commands, '').length).toBe(3)
  })

  it('grows a streaming entry from deltas and replaces it with the committed message', () => {
    const m = new TranscriptModel()
    m.live({ type: 'reasoning-delta', turn: 1, step: 1, text: 'think' })
    m.live({ type: 'text-delta', turn: 1, step: 1, text: 'Hel' })
    m.live({ type: 'text-delta', turn: 1, step: 1, text: 'lo' })
    expect(m.items).toMatchObject([{ kind: 'streaming', text: 'Hello', reasoning: 'think' }])
    m.apply({ seq: 5, time: 0, type: 'assistant/message', data: { turn: 1, step: 1, message: { content: [{ type: 'reasoning', text: 'think' }, { type: 'text', text: 'Hello' }] } } })
    expect(m.items).toMatchObject([{ kind: 'assistant', text: 'Hello', reasoning: 'think' }])
  })

  it('puts a tool call and its result, diff and error flag in one card', () => {
    const m = new TranscriptModel()
    m.apply({ seq: 0, time: 0, type: 'tool/call', data: { callId: 'c1', name: 'edit', arguments: '{"path":"a"}' } })
    m.live({ type: 'tool-progress', callId: 'c1', text: 'working' })
    m.apply({ seq: 1, time: 0, type: 'tool/result', data: { callId: 'c1', content: text('ok'), isError: false, meta: { diff: '-a\n+b' } } })
    expect(m.items).toEqual([
      { kind: 'tool', key: 'e0', seq: 0, callId: 'c1', name: 'edit', input: '{"path":"a"}', progress: 'working', output: 'ok', isError: false, diff: '-a\n+b' },
    ])
  })
})

describe('notices in the transcript', () => {
  const header = (seq: number, model: string, effort: string) =>
    ({ seq, time: 0, type: 'request/header', data: { config: { model, effort } } }) as const

  it('announces a model or effort switch once, at the request that first used it, and nothing for the first or an equal header', () => {
    const m = new TranscriptModel()
    m.apply(header(0, 'deepseek-v4-flash', 'high'))
    m.apply(header(1, 'deepseek-v4-flash', 'high'))
    expect(m.items).toEqual([])
    m.apply(header(2, 'deepseek-v4-pro', 'high'))
    m.apply(header(3, 'deepseek-v4-pro', 'off'))
    m.apply(header(4, 'deepseek-v4-flash', 'max'))
    m.apply(header(5, 'deepseek-v4-flash', 'max'))
    expect(m.items.map((i) => (i.kind === 'notice' ? [i.seq, i.text] : i.kind))).toEqual([
      [2, 'Switched model deepseek-v4-flash → deepseek-v4-pro.'],
      [3, 'Switched effort high → off.'],
      [4, 'Switched model deepseek-v4-pro → deepseek-v4-flash, effort off → max.'],
    ])
  })

  it('passes over a header without a model rather than announcing a switch from or to nothing', () => {
    const m = new TranscriptModel()
    m.apply({ seq: 0, time: 0, type: 'request/header', data: {} })
    m.apply(header(1, 'deepseek-v4-pro', 'high'))
    m.apply({ seq: 2, time: 0, type: 'request/header', data: { config: {} } })
    m.apply(header(3, 'deepseek-v4-pro', 'high'))
    expect(m.items).toEqual([])
  })
})

describe('Markdown from the model', () => {
  it('shows raw HTML as text and drops links that are not http(s) or mailto', () => {
    const html = markdownHtml('<img src=x onerror=alert(1)> [a](javascript:alert(1)) [b](https://example.com)')
    expect(html).not.toContain('<img')
    expect(html).toContain('&lt;img')
    expect(html).not.toContain('javascript:')
    expect(html).toContain('<a href="https://example.com"')
  })
})

describe('Markdown while it streams', () => {
  const samples = [
    '# Plan\n\nFirst **bold** step, then `code`.\n\n- one\n- two\n\nDone.',
    'Before\n\n```ts\nconst a = 1\n\nconst b = 2\n```\n\nAfter the fence.',
    '1. a\n2. b\n\n> quoted\n\n| x | y |\n|---|---|\n| 1 | 2 |\n',
    '~~~\nopen fence never closed\n\nstill code',
  ]

  it('renders as the whole text renders, whatever the chunks the text arrives in', () => {
    samples.forEach((sample, n) => {
      for (const size of [1, 3, 7, 40]) {
        let html = ''
        for (let at = size; at < sample.length + size; at += size) html = streamingMarkdownHtml(`s${n}.${size}`, sample.slice(0, at))
        expect(html, `sample ${n}, chunks of ${size}`).toBe(markdownHtml(sample))
      }
    })
  })

  it('finishes blocks only at a blank line outside a code fence', () => {
    expect(stableEnd('para one\n\npara two')).toBe('para one\n\n'.length)
    expect(stableEnd('```\ncode\n\nmore')).toBe(0)
    expect(stableEnd('```\ncode\n\n```\n\ntail')).toBe('```\ncode\n\n```\n\n'.length)
    expect(stableEnd('no blank line yet')).toBe(0)
  })

  it('starts over when the text is not a continuation of what it rendered (another step reused the key)', () => {
    streamingMarkdownHtml('k', 'alpha\n\nbeta')
    expect(streamingMarkdownHtml('k', 'gamma\n\ndelta')).toBe(markdownHtml('gamma\n\ndelta'))
  })
})
