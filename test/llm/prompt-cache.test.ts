import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { canonicalJson, INTERVAL_TOKENS, PromptCache } from '../../src/llm/mock/prompt-cache.js'

/** The rules of prompt-cache.ts written the obvious way (every unit and every earlier prompt compared whole). */
class ObviousCache {
  private readonly units = new Set<string>()
  private readonly seen: string[] = []
  lookup(prompt: string): number {
    let best = ''
    for (const unit of this.units) if (unit.length > best.length && prompt.startsWith(unit)) best = unit
    for (const earlier of this.seen) {
      let i = 0
      while (i < Math.min(earlier.length, prompt.length) && earlier[i] === prompt[i]) i++
      if (i > 0) this.units.add(prompt.slice(0, i))
    }
    this.seen.push(prompt)
    const input = prompt.endsWith(']]') ? prompt.slice(0, -2) : prompt
    this.units.add(input)
    for (let at = INTERVAL_TOKENS * 4; at < input.length; at += INTERVAL_TOKENS * 4) this.units.add(input.slice(0, at))
    return Math.floor(Buffer.byteLength(best, 'utf8') / 4)
  }
  answered(prompt: string, message: unknown): void {
    const input = prompt.endsWith(']]') ? prompt.slice(0, -2) : prompt
    this.units.add(`${input}${input.endsWith('[') ? '' : ','}${canonicalJson(message)}`)
  }
}

const prompt = (messages: string[]): string => canonicalJson([[], null, messages.map((content) => ({ role: 'user', content }))])

describe("the mock's prefix cache", () => {
  it('reports the same hits as the rules applied request by request over every unit and every earlier prompt', () => {
    const words = fc.constantFrom('a', 'b', 'ab', 'ba', 'x'.repeat(5_000), 'é')
    const session = fc.array(fc.record({ messages: fc.array(words, { minLength: 1, maxLength: 6 }), answer: fc.option(words) }), { minLength: 1, maxLength: 12 })
    fc.assert(
      fc.property(session, (requests) => {
        const fast = new PromptCache()
        const obvious = new ObviousCache()
        for (const { messages, answer } of requests) {
          const p = prompt(messages)
          expect(fast.lookup(p).hitTokens).toBe(obvious.lookup(p))
          if (answer !== null) {
            fast.answered(p, { role: 'assistant', content: answer })
            obvious.answered(p, { role: 'assistant', content: answer })
          }
        }
      }),
      { numRuns: 300 },
    )
  })

  it('hits a growing session up to its previous request, however many requests came before', () => {
    const cache = new PromptCache()
    const messages: string[] = []
    let last = { promptTokens: 0, hitTokens: 0 }
    for (let i = 0; i < 400; i++) {
      messages.push(`turn ${i}`)
      last = cache.lookup(prompt(messages))
    }
    expect(last.hitTokens).toBe(Math.floor((prompt(messages.slice(0, -1)).length - 2) / 4))
  })
})
