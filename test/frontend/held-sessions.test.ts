import { describe, expect, it } from 'vitest'
import { HeldSessions } from '../../src/frontend/hosting/held-sessions.js'

/** What every server that holds sessions open (the web, an ACP connection) relies on: one open per id, clean shutdown. */

class Fake {
  readonly log: string[]
  constructor(
    readonly id: string,
    log: string[],
    private readonly failClose = false,
  ) {
    this.log = log
  }
  async close(reason: string): Promise<void> {
    this.log.push(`close ${this.id} ${reason}`)
    if (this.failClose) throw new Error(`${this.id} could not flush`)
  }
}

describe('HeldSessions', () => {
  it('shares one open between callers resuming the same session at once, and holds it afterwards', async () => {
    const log: string[] = []
    const held = new HeldSessions<Fake>((s) => log.push(`stop ${s.id}`))
    let opens = 0
    const open = async () => {
      opens++
      await new Promise((r) => setTimeout(r, 10))
      return new Fake('a', log)
    }
    const [one, two] = await Promise.all([held.resume('a', open), held.resume('a', open)])
    expect(one).toBe(two)
    expect(opens).toBe(1)
    expect(await held.resume('a', open)).toBe(one)
    expect(opens).toBe(1)
    expect(held.get('a')).toBe(one)
  })

  it('forgets a failed open, so the next resume tries again', async () => {
    const held = new HeldSessions<Fake>(() => {})
    await expect(held.resume('b', async () => Promise.reject(new Error('the lease is held elsewhere')))).rejects.toThrow('the lease is held elsewhere')
    expect(held.get('b')).toBeUndefined()
    const log: string[] = []
    expect((await held.resume('b', async () => new Fake('b', log))).id).toBe('b')
  })

  it('releases one session, and closes all by stopping every turn first, reporting each failed close', async () => {
    const log: string[] = []
    const held = new HeldSessions<Fake>((s) => log.push(`stop ${s.id}`))
    held.keep(new Fake('a', log))
    held.keep(new Fake('b', log, true))
    held.keep(new Fake('c', log))
    expect(await held.release('c', 'closed by the client')).toBe(true)
    expect(await held.release('c', 'again')).toBe(false)
    const failures = await held.closeAll('shutdown')
    expect(log).toEqual(['close c closed by the client', 'stop a', 'stop b', 'close a shutdown', 'close b shutdown'])
    expect(failures.map((f) => (f as Error).message)).toEqual(['b could not flush'])
    expect(held.values()).toEqual([])
  })
})
