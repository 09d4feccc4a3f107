import { describe, expect, it } from 'vitest'
import { costOf, modelInfo } from '../../src/llm/catalog.js'
import { createAdapter } from '../../src/llm/create.js'
import { defaultUserId } from '../../src/llm/user-id.js'
import { requestOf, userSays, WIRES } from './helpers.js'

const parse = (body: string): any => JSON.parse(body) // wire JSON, read loosely in assertions
const adapter = (wire: 'chat' | 'anthropic', userId?: string) => createAdapter({ wire, baseUrl: 'http://127.0.0.1:9', apiKey: () => undefined, userId })
const sentUserId = (wire: 'chat' | 'anthropic', body: any): unknown => (wire === 'chat' ? body.user_id : body.metadata?.user_id)

describe("DeepSeek's user_id", () => {
  for (const wire of WIRES) {
    it(`is a stable per-user hash by default, logged in the header config and sent in the body (${wire})`, () => {
      const a = adapter(wire)
      const config = a.headerConfig!({ model: 'deepseek-flash', effort: 'high' })
      expect(config.userId).toBe(defaultUserId())
      expect(config.userId).toMatch(/^rein-[0-9a-f]{32}$/)
      expect(sentUserId(wire, parse(a.body(requestOf([userSays('hi')], { config }))))).toBe(config.userId)
    })

    it(`comes from settings, and an agent's own id wins over settings (${wire})`, () => {
      const a = adapter(wire, 'team-a')
      expect(a.headerConfig!({ model: 'deepseek-flash', effort: 'high' }).userId).toBe('team-a')
      const own = a.headerConfig!({ model: 'deepseek-flash', effort: 'high', userId: 'tenant-7_task-3' })
      expect(sentUserId(wire, parse(a.body(requestOf([userSays('hi')], { config: own }))))).toBe('tenant-7_task-3')
    })
  }

  it('is not sent for a header logged before Rein sent it, so old request digests still match', () => {
    const body = parse(adapter('chat').body(requestOf([userSays('hi')], { config: { model: 'deepseek-flash', effort: 'high' } })))
    expect('user_id' in body).toBe(false)
  })

  it('refuses an id DeepSeek would refuse with one sentence naming where it came from', () => {
    expect(() => adapter('chat', 'me@example.com').headerConfig!({ model: 'deepseek-flash', effort: 'high' })).toThrow(
      /^The userId in settings must be 1 to 512 letters, digits, "_" or "-" \(DeepSeek's user_id\); got "me@example.com"\.$/,
    )
    expect(() => adapter('chat').headerConfig!({ model: 'deepseek-flash', effort: 'high', userId: 'x'.repeat(513) })).toThrow(/agent's userId/)
  })
})

describe('claude model names, as DeepSeek maps them on the Anthropic wire', () => {
  it('claude-opus names are V4 Pro and other claude names Flash, with 1M windows, their prices and the Anthropic wire', () => {
    const opus = modelInfo('claude-opus-4-1')
    const sonnet = modelInfo('claude-sonnet-4-5')
    expect(opus).toMatchObject({ aliasOf: 'deepseek-v4-pro', wire: 'anthropic', contextWindow: modelInfo('deepseek-v4-pro').contextWindow })
    expect(opus.prices).toEqual(modelInfo('deepseek-v4-pro').prices)
    expect(sonnet).toMatchObject({ aliasOf: 'deepseek-flash', wire: 'anthropic', maxOutput: 384_000 })
    const usage = { inputUncached: 1_000_000, inputCacheRead: 0, output: 0, reasoning: 0 }
    expect(costOf(usage, opus, Date.UTC(2026, 10, 29, 12))).toBe(modelInfo('deepseek-v4-pro').prices.cacheMiss)
  })

  it('a request for a claude name on the Anthropic wire fits its max_tokens to the mapped 1M window', () => {
    const a = adapter('anthropic')
    const config = a.headerConfig!({ model: 'claude-opus-4-1', effort: 'high' })
    expect(config).toMatchObject({ maxOutputTokens: 384_000, contextWindow: modelInfo('deepseek-v4-pro').contextWindow })
    expect(parse(a.body(requestOf([userSays('hi')], { config }))).max_tokens).toBe(384_000)
  })
})
