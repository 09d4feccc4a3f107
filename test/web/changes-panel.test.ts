import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '../../src/session/events.js'
import { AttachmentRefusal, fileLabel, mentionedPaths, promptBlocks } from '../../src/web/attachment-files.js'
import { changedFiles, fileSpan } from '../../src/web/session-changes.js'
import { STAGED_PER_SESSION, STAGING_SESSIONS, StagedAttachments } from '../../src/web/staged-attachments.js'
import { mentionAt } from '../../web/src/mention-at.js'
import { TranscriptModel } from '../../web/src/transcript.js'

let seq = 0
const event = (type: string, data: Record<string, unknown>): SessionEvent => ({ seq: seq++, time: 0, type, data }) as unknown as SessionEvent
const created = (turn: number, step: number, commit: string) => event('checkpoint/created', { turn, step, commit })
const changes = (turn: number, step: number, paths: [string, string][]) =>
  event('checkpoint/changes', { turn, step, paths: paths.map(([path, kind]) => ({ path, kind })) })

describe('the files a session changed', () => {
  const log = [
    created(1, 1, 'c1'),
    changes(1, 1, [['a.txt', 'modified'], ['tmp.txt', 'added'], ['new.txt', 'added']]),
    created(2, 1, 'c2'),
    changes(2, 1, [['a.txt', 'modified'], ['tmp.txt', 'deleted'], ['old.txt', 'deleted'], ['new.txt', 'modified']]),
  ]

  it('lists each file once, in the order first changed, with every step and its kind over the whole session', () => {
    expect(changedFiles(log)).toEqual([
      { path: 'a.txt', kind: 'modified', steps: [{ turn: 1, step: 1, kind: 'modified' }, { turn: 2, step: 1, kind: 'modified' }] },
      { path: 'new.txt', kind: 'added', steps: [{ turn: 1, step: 1, kind: 'added' }, { turn: 2, step: 1, kind: 'modified' }] },
      { path: 'old.txt', kind: 'deleted', steps: [{ turn: 2, step: 1, kind: 'deleted' }] },
    ])
  })

  it('diffs a file from the snapshot before its first change to the state after its last', () => {
    const [a, , old] = changedFiles(log)
    expect(fileSpan(log, a)).toEqual({ before: 'c1', after: 'workspace' })
    expect(fileSpan(log, old)).toEqual({ before: 'c2', after: 'workspace' })
    expect(fileSpan([changes(1, 1, [['x', 'added']])], { path: 'x', kind: 'added', steps: [{ turn: 1, step: 1, kind: 'added' }] })).toBeUndefined()
  })
})

describe('mentions and attachment names', () => {
  it('finds the @word the caret is in, and every @path of a prompt without trailing punctuation', () => {
    expect(mentionAt('see @src/ma', 11)).toEqual({ start: 4, query: 'src/ma' })
    expect(mentionAt('mail a@b.c', 10)).toBeUndefined()
    expect(mentionAt('@x and more', 11)).toBeUndefined()
    expect(mentionedPaths('read @a.txt, then @b/c.md. @a.txt again; email me @')).toEqual(['a.txt', 'b/c.md'])
  })

  it('takes a file name as a label only, refusing any path in it', () => {
    expect(fileLabel(' shot.png ')).toBe('shot.png')
    for (const name of ['../x', 'a/b', 'a\\b', '..', '', 'a\nb', 'x'.repeat(256)]) expect(() => fileLabel(name), JSON.stringify(name)).toThrow(AttachmentRefusal)
  })

  it('sends attachments as the terminal does: the text, then each file under its heading', () => {
    expect(promptBlocks('hi', [{ kind: 'text', name: 'a.txt', text: 'A' }, { kind: 'image', name: 'p.png', mimeType: 'image/png', data: 'AAAA' }])).toEqual([
      { type: 'text', text: 'hi' },
      { type: 'text', text: 'Attached file @a.txt:\nA' },
      { type: 'text', text: 'Attached file @p.png (image/png):' },
      { type: 'image', mimeType: 'image/png', data: 'AAAA' },
    ])
  })
})

describe('an attached file in the page’s transcript', () => {
  it('shows one line naming the file, as the terminal does, not the file’s content', () => {
    const m = new TranscriptModel()
    const content = promptBlocks('look', [{ kind: 'text', name: 'notes.txt', text: 'kumquat' }, { kind: 'image', name: 's.png', mimeType: 'image/png', data: 'AAAA' }])
    m.apply({ seq: 0, time: 0, type: 'user/message', data: { id: 'u1', content, source: { kind: 'user' } } })
    expect(m.items[0]).toMatchObject({ kind: 'user', text: 'look\n\n⎘ attached @notes.txt\n\n⎘ attached @s.png (image/png)', images: 1 })
  })
})

describe('staged uploads', () => {
  it('keep at most 20 files a session and 32 sessions, dropping the oldest, and are taken once', () => {
    const staged = new StagedAttachments()
    const file = { kind: 'text' as const, name: 'a.txt', text: 'A' }
    const first = staged.add('s0', file)
    for (let i = 0; i < STAGED_PER_SESSION; i++) staged.add('s0', file)
    expect(staged.take('s0', [first])).toEqual({ missing: first })
    const kept = staged.add('s1', file)
    for (let i = 2; i <= STAGING_SESSIONS + 1; i++) staged.add(`s${i}`, file)
    expect(staged.take('s1', [kept])).toEqual({ missing: kept })
    const last = staged.add('s2', file)
    expect(staged.take('s2', [last])).toEqual({ attachments: [file] })
    expect(staged.take('s2', [last])).toEqual({ missing: last })
  })
})
