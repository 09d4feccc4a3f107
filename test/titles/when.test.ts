import { describe, expect, it } from 'vitest'
import type { TurnEndReason } from '../../src/session/events.js'
import { Session } from '../../src/session/session.js'
import { MemoryStore } from '../../src/store/memory-store.js'
import { titleMoment } from '../../src/titles/when.js'

/** A session with one turn per entry: the prompt, the answer and how the turn ended. */
async function sessionWith(turns: { prompt: string; answer?: string; reason?: TurnEndReason }[]): Promise<Session> {
  const session = await Session.create(new MemoryStore(), { cwd: '/w' })
  turns.forEach((t, turn) => {
    session.append('turn/start', { turn })
    session.append('user/message', { id: `u${turn}`, content: [{ type: 'text', text: t.prompt }], source: { kind: 'user' } })
    if (t.answer !== undefined) {
      session.append('assistant/message', { turn, step: 0, message: { role: 'assistant', content: [{ type: 'text', text: t.answer }] } })
    }
    session.append('turn/end', { turn, reason: t.reason ?? 'completed' })
  })
  return session
}

const lastTurnEnd = (session: Session) => session.last('turn/end')!

describe('when a session asks the model for its title', () => {
  it('asks when the first turn has answered, from the first prompt and the start of the answer', async () => {
    const session = await sessionWith([{ prompt: 'Why does the login test flake?', answer: 'It races the token refresh.' }])
    expect(titleMoment(session, lastTurnEnd(session))).toEqual({ prompt: 'Why does the login test flake?', reply: 'It races the token refresh.' })
  })

  it('does not ask when a turn ended without an answer (cancelled or failed)', async () => {
    const session = await sessionWith([{ prompt: 'hello', reason: 'aborted' }])
    expect(titleMoment(session, lastTurnEnd(session))).toBeUndefined()
  })

  it('asks at the first turn that answered when the turns before it did not, from the first prompt', async () => {
    const session = await sessionWith([{ prompt: 'first try', reason: 'error' }, { prompt: 'again', answer: 'Done.' }])
    expect(titleMoment(session, lastTurnEnd(session))).toEqual({ prompt: 'first try', reply: 'Done.' })
  })

  it('does not ask after a later turn: only the first answered turn counts, so a resumed session is never titled late', async () => {
    const session = await sessionWith([{ prompt: 'one', answer: 'a' }, { prompt: 'two', answer: 'b' }])
    expect(titleMoment(session, lastTurnEnd(session))).toBeUndefined()
  })

  it('never asks once the user renamed the session: a rename wins', async () => {
    const session = await sessionWith([])
    session.append('session/title', { title: 'My name for it' })
    session.append('turn/start', { turn: 0 })
    session.append('user/message', { id: 'u', content: [{ type: 'text', text: 'hi' }], source: { kind: 'user' } })
    session.append('turn/end', { turn: 0, reason: 'completed' })
    expect(titleMoment(session, lastTurnEnd(session))).toBeUndefined()
  })

  it('never asks twice: a failed title request is final', async () => {
    const session = await sessionWith([{ prompt: 'hi', answer: 'hello' }])
    const ended = lastTurnEnd(session)
    session.append('title/failed', { model: 'deepseek-flash', error: { code: 'server', message: 'x' } }, { ignorable: true })
    expect(titleMoment(session, ended)).toBeUndefined()
  })

  it('does not ask for a session whose first prompt has no text', async () => {
    const session = await sessionWith([{ prompt: '   ', answer: 'ok' }])
    expect(titleMoment(session, lastTurnEnd(session))).toBeUndefined()
  })
})
