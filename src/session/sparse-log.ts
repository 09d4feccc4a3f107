import type { SessionEvent } from './events.js'

/**
 * The events of a session resumed from its sidecar (see `sidecar.ts`), as the array `Session.events` returns.
 *
 * Invariants: `length` is the log's length (the next seq); `log[seq]` is the event with that seq when it is held and
 * undefined when it is not; iteration (`for…of`, spread) yields the held events in seq order and nothing else, and
 * the array methods that skip holes (`forEach`, `map`, `filter`, `reduce`, `some`) see the same events. Held are the
 * surface, the latest event of each type, the queued prompts still pending, the open step's events (`heldFrom`)
 * before the sidecar's end, and every event after it; that is all a running agent reads. `push` appends the next
 * event (held from then on); every other write throws.
 */
export function sparseLog(held: readonly SessionEvent[], length: number): SessionEvent[] {
  const ordered = [...held]
  const bySeq = new Map<number, SessionEvent>()
  for (const event of ordered) bySeq.set(event.seq, event)
  let size = length
  const refuse = (): never => {
    throw new TypeError('the log of a session resumed from its sidecar can only be appended to.')
  }
  const seqOf = (key: string | symbol): number => {
    if (typeof key !== 'string') return -1
    const code = key.charCodeAt(0)
    if (code < 48 || code > 57) return -1
    const seq = Number(key)
    return Number.isInteger(seq) && String(seq) === key ? seq : -1
  }
  const push = (...events: SessionEvent[]): number => {
    for (const event of events) {
      ordered.push(event)
      bySeq.set(size, event)
      size++
    }
    return size
  }
  return new Proxy(ordered, {
    get(target, key) {
      if (key === 'length') return size
      if (key === 'push') return push
      if (key === Symbol.iterator) return () => ordered[Symbol.iterator]()
      const seq = seqOf(key)
      if (seq !== -1) return bySeq.get(seq)
      return Reflect.get(target, key) as unknown
    },
    has(target, key) {
      const seq = seqOf(key)
      return seq !== -1 ? bySeq.has(seq) : Reflect.has(target, key)
    },
    ownKeys() {
      return [...[...bySeq.keys()].map(String), 'length']
    },
    getOwnPropertyDescriptor(target, key) {
      if (key === 'length') return { value: size, writable: true, enumerable: false, configurable: false }
      const seq = seqOf(key)
      if (seq !== -1) {
        const event = bySeq.get(seq)
        return event ? { value: event, writable: false, enumerable: true, configurable: true } : undefined
      }
      return Reflect.getOwnPropertyDescriptor(target, key)
    },
    set: refuse,
    defineProperty: refuse,
    deleteProperty: refuse,
    setPrototypeOf: refuse,
    preventExtensions: refuse,
  })
}
