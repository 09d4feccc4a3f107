import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Session } from '../../src/session/session.js'
import { SessionError } from '../../src/store/errors.js'
import { JsonlStore } from '../../src/store/jsonl-store.js'
import { appendTurn } from './conversation.js'

let home: string
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'rein-bad-'))
})
afterEach(async () => {
  await rm(home, { recursive: true, force: true })
})

/** Writes a two-turn session, lets `edit` change its lines, and returns the id and path. */
async function damaged(edit: (lines: string[]) => void): Promise<{ id: string; path: string; text: string }> {
  const session = await Session.create(new JsonlStore(home), { cwd: '/repo' })
  appendTurn(session, 1, 'one')
  appendTurn(session, 2, 'two')
  await session.close()
  const lines = (await readFile(session.path!, 'utf8')).trimEnd().split('\n')
  edit(lines)
  const text = `${lines.join('\n')}\n`
  await writeFile(session.path!, text)
  return { id: session.id, path: session.path!, text }
}

async function loadError(id: string): Promise<SessionError> {
  const error = await Session.load(new JsonlStore(home), id).then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(SessionError)
  return error as SessionError
}

describe('loading a damaged log', () => {
  it('refuses a corrupt line in the middle, naming the file and line, and leaves the file untouched', async () => {
    const { id, path, text } = await damaged((lines) => {
      lines[5] = lines[5].slice(0, 20)
    })
    const error = await loadError(id)
    expect(error.code).toBe('damaged')
    expect(error.message).toBe(
      `session file ${path} line 6 is not valid JSON; Rein left the file untouched, so repair or remove that line (or move the file aside) and try again.`,
    )
    expect(await readFile(path, 'utf8')).toBe(text)
    expect((await readdir(dirname(path))).filter((f) => f.includes('.torn-'))).toEqual([])
  })

  it('refuses a seq gap', async () => {
    const { id, path } = await damaged((lines) => lines.splice(4, 1))
    const error = await loadError(id)
    expect(error.message).toContain(`session file ${path} line 5 has seq 4 where 3 was expected`)
  })

  it('refuses an unknown event type that is not marked ignorable', async () => {
    const { id } = await damaged((lines) => {
      lines.push(JSON.stringify({ seq: lines.length - 1, time: 1, type: 'future/thing', data: {} }))
    })
    expect((await loadError(id)).message).toMatch(/line \d+ has the unknown event type "future\/thing" and is not marked ignorable/)
  })

  it('loads an unknown event type marked ignorable and keeps it in the log', async () => {
    const { id } = await damaged((lines) => {
      lines.push(JSON.stringify({ seq: lines.length - 1, time: 1, type: 'future/thing', data: { x: 1 }, ignorable: true }))
    })
    const session = await Session.load(new JsonlStore(home), id)
    expect(session.events.at(-1)).toMatchObject({ type: 'future/thing', ignorable: true })
    await session.close()
  })

  it('refuses a surface event without a surfaceOp', async () => {
    const { id } = await damaged((lines) => {
      lines[3] = lines[3].replace(',"surfaceOp":"append"', '')
    })
    expect((await loadError(id)).message).toMatch(/line 4 is a user\/message without the surfaceOp/)
  })

  it('refuses a header of another version with a sentence that says what to do', async () => {
    const { id, path } = await damaged((lines) => {
      lines[0] = lines[0].replace('"version":1', '"version":2')
    })
    const error = await loadError(id)
    expect(error.code).toBe('version')
    expect(error.message).toBe(
      `session file ${path} has format version 2, but this Rein reads version 1; open it with the Rein that wrote it or upgrade Rein.`,
    )
  })

  it('reports a missing session clearly', async () => {
    const error = await loadError('0123abcd-no-such-session')
    expect(error.code).toBe('not-found')
    expect(error.message).toMatch(/^no session 0123abcd-no-such-session in .*; run `rein sessions list --all` to see the ids\.$/)
  })

  it('refuses an id that could name another path', async () => {
    const error = await loadError('../../etc/passwd')
    expect(error.message).toMatch(/is not a session id/)
  })
})
