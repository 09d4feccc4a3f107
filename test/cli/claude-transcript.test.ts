import { describe, expect, it } from 'vitest'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { transcriptPathFor, transcriptText, writeTranscript } from '../../src/hooks/claude-transcript.js'
import type { SurfaceEvent } from '../../src/session/events.js'

const facts = { sessionId: 's-1', cwd: '/work/p', model: 'deepseek-flash', version: '9.9.9' }
const at = (seq: number) => ({ seq, time: Date.UTC(2026, 0, 2, 3, 4, seq) })

/** A surface as the log would hold it: a prompt, injected context, a response with a tool call, its result, an image prompt. */
const surface = [
  { ...at(1), type: 'user/message', data: { id: 'u1', content: [{ type: 'text', text: 'Count the files.' }], source: { kind: 'user' } } },
  { ...at(2), type: 'context/message', data: { id: 'c1', content: [{ type: 'text', text: 'Date: today' }], source: { kind: 'runtime' } } },
  {
    ...at(3),
    type: 'assistant/message',
    data: { turn: 1, step: 1, message: { role: 'assistant', content: [{ type: 'reasoning', text: 'Use ls.' }, { type: 'tool-call', id: 'call_1', name: 'ls', arguments: '{"path":"."}' }] } },
  },
  { ...at(4), type: 'tool/result', data: { turn: 1, step: 1, callId: 'call_1', content: [{ type: 'text', text: 'a\nb' }], isError: false } },
  { ...at(5), type: 'user/message', data: { id: 'u2', content: [{ type: 'text', text: 'And this?' }, { type: 'image', mimeType: 'image/png', data: 'AAAA' }], source: { kind: 'user' } } },
] as unknown as SurfaceEvent[]

describe('the Claude Code transcript projected from the surface', () => {
  const lines = transcriptText(surface, facts).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)

  it('has one compact line per surface event, chained by uuid, in Claude Code entry shape', () => {
    expect(lines).toHaveLength(5)
    expect(lines.map((l) => [l.type, l.isMeta ?? false])).toEqual([['user', false], ['user', true], ['assistant', false], ['user', false], ['user', false]])
    expect(lines[0]).toMatchObject({ parentUuid: null, sessionId: 's-1', cwd: '/work/p', version: '9.9.9', timestamp: '2026-01-02T03:04:01.000Z', message: { role: 'user', content: 'Count the files.' } })
    for (let i = 1; i < lines.length; i++) expect(lines[i].parentUuid).toBe(lines[i - 1].uuid)
    // Compact JSON, so `grep '"role":"assistant"'` finds the assistant entries as it does in Claude Code's files.
    expect(transcriptText(surface, facts).split('\n').filter((l) => l.includes('"role":"assistant"'))).toHaveLength(1)
  })

  it('names tools as Claude Code does and pairs each result with its call', () => {
    expect(lines[2].message).toMatchObject({
      role: 'assistant',
      model: 'deepseek-flash',
      stop_reason: 'tool_use',
      content: [{ type: 'thinking', thinking: 'Use ls.', signature: '' }, { type: 'tool_use', id: 'call_1', name: 'LS', input: { path: '.' } }],
    })
    expect(lines[3]).toMatchObject({ message: { content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'a\nb', is_error: false }] }, toolUseResult: 'a\nb' })
    expect((lines[4].message as { content: unknown }).content).toEqual([{ type: 'text', text: 'And this?' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }])
  })

  it('gives the same uuids when written again, and lives apart from the files the store lists', () => {
    expect(transcriptText(surface, facts)).toBe(transcriptText(surface, facts))
    expect(transcriptPathFor('/home/u/.rein/sessions/abc/s-1.jsonl')).toBe('/home/u/.rein/sessions/abc/claude-transcripts/s-1.jsonl')
  })

  it('a surface that grew is appended and one that changed is rewritten, the file always equal to the projection', () => {
    const log = join(mkdtempSync(join(tmpdir(), 'rein-transcript-')), 's-1.jsonl')
    const path = writeTranscript(log, surface.slice(0, 2), facts)
    expect(readFileSync(path, 'utf8')).toBe(transcriptText(surface.slice(0, 2), facts))
    writeTranscript(log, surface, facts)
    expect(readFileSync(path, 'utf8')).toBe(transcriptText(surface, facts))
    // A compaction replaced the older entries: the file starts over from the new surface.
    const compacted = surface.slice(3)
    writeTranscript(log, compacted, facts)
    expect(readFileSync(path, 'utf8')).toBe(transcriptText(compacted, facts))
    expect(JSON.parse(readFileSync(path, 'utf8').split('\n')[0]).parentUuid).toBeNull()
  })
})
