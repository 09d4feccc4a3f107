import type { ModelConfig } from './adapter.js'
import { lineageOf } from './lineage.js'
import type { Message } from './messages.js'

/**
 * A left fold over a request's message list, kept between requests: when the next request has the same config and
 * starts with the same message objects (the session hands out frozen messages that keep their identity while the
 * surface only grows), only the new messages are folded in. Anything else — a new config, a replaced surface, a list
 * that is not an extension — folds from the start. `step` may mutate the state it is given: the cache owns it. A fold
 * over a message that is not frozen is not kept (its caller could change it in place before the next request).
 *
 * Cost: O(new messages) of `step`, plus O(1) when the list names the same lineage as the last one (lineage.ts: then it
 * extends it by contract), else O(messages) pointer comparisons. Correctness rests on `step` depending only on the
 * config and the message, which the wire encoders keep.
 */
export class FoldCache<S> {
  private key: string | undefined
  private seen: Message[] = []
  private state: S | undefined
  private lineage: object | undefined

  extend(config: ModelConfig, messages: readonly Message[], start: () => S, step: (state: S, message: Message) => void): S {
    const key = JSON.stringify(config)
    const reusable = key === this.key && this.state !== undefined && messages.length >= this.seen.length
    const lineage = lineageOf(messages)
    let from = 0
    if (reusable && lineage !== undefined && lineage === this.lineage) from = this.seen.length
    else if (reusable) {
      while (from < this.seen.length && messages[from] === this.seen[from]) from++
    }
    this.lineage = lineage
    let state = this.state
    if (!reusable || state === undefined || from < this.seen.length) {
      this.key = key
      this.seen = []
      state = start()
      from = 0
    }
    let frozen = true
    for (let i = from; i < messages.length; i++) {
      const message = messages[i]
      step(state, message)
      this.seen.push(message)
      frozen &&= Object.isFrozen(message)
    }
    this.state = frozen ? state : undefined
    return state
  }
}
