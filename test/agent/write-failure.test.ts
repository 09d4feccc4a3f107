import { describe, expect, it } from 'vitest'
import { MemoryStore } from '../../src/store/memory-store.js'
import { Session } from '../../src/session/session.js'
import { harness } from '../support/agent-harness.js'

const diskFull = (): Error => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })

describe('a log write that fails ends the run', () => {
  for (const nth of [1, 2, 3]) {
    it(`when write ${nth} of a turn fails, no further request or tool call happens and the turn ends with the one sentence`, async () => {
      const store = new MemoryStore()
      const session = await Session.create(store, { cwd: process.cwd() })
      const h = await harness({
        store,
        session,
        script: [
          { toolCalls: [{ name: 'echo', arguments: { text: 'one' } }] },
          { toolCalls: [{ name: 'echo', arguments: { text: 'two' } }] },
          { toolCalls: [{ name: 'echo', arguments: { text: 'three' } }] },
          { text: 'done' },
        ],
      })
      store.failWrite = { after: nth, error: diskFull() }
      h.agent.followUp('go')
      const outcome = await h.agent.whenIdle()
      const saved = store.lines.get(session.id)!.length - 2
      expect(outcome).toEqual({
        turn: 1,
        reason: 'error',
        message: `Rein could not write the session log (disk full); ${saved >= 0 ? `everything up to event ${saved} is saved` : 'only its header is saved'}; free space and run rein --resume ${session.id}.`,
      })
      // Each write is followed by at most one request or one tool batch; after the failing one, nothing more is sent.
      expect(h.bodies().length).toBeLessThanOrEqual(nth)
      expect(h.bodies().length).toBeLessThan(4)
      store.failWrite = undefined
      await h.close()
      // What was written is a prefix of the log that loads and resumes.
      const resumed = await Session.load(store, session.id)
      const count = (type: string): number => resumed.events.filter((e) => e.type === type).length
      expect(count('turn/end')).toBe(count('turn/start'))
      await resumed.close()
    })
  }
})
