import { describe, expect, it } from 'vitest'
import type { ModelConfig, ModelRequest } from '../../src/llm/adapter.js'
import { completeConfig } from '../../src/llm/body-settings.js'
import { modelInfo } from '../../src/llm/catalog.js'
import { createAdapter } from '../../src/llm/create.js'
import { defaultUserId } from '../../src/llm/user-id.js'
import { WIRES } from './helpers.js'

const base: ModelConfig = { model: 'deepseek-flash', effort: 'high' }

function request(config: ModelConfig): ModelRequest {
  return { config, system: 'sys', tools: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] }
}

describe('the header config records every setting a body depends on', () => {
  for (const wire of WIRES) {
    it(`adapters made with different settings build the same bytes for the same logged request (${wire})`, () => {
      const a = createAdapter({ wire, baseUrl: 'http://127.0.0.1:9', models: { 'deepseek-flash': { maxOutput: 1_000, contextWindow: 10_000, images: false } } })
      const b = createAdapter({ wire, baseUrl: 'http://127.0.0.1:9', maxOutputTokens: 77 })
      const logged = a.headerConfig!(base)
      expect(b.body(request(logged))).toBe(a.body(request(logged)))
    })
  }

  it('lowers the catalog maximum by the user cap and by a settings override, and records window and vision', () => {
    const flash = modelInfo('deepseek-flash')
    expect(completeConfig(base, {}, 'chat')).toEqual({ ...base, maxOutputTokens: flash.maxOutput, contextWindow: flash.contextWindow, images: flash.images, userId: defaultUserId() })
    expect(completeConfig(base, { maxOutputTokens: 900 }, 'chat').maxOutputTokens).toBe(900)
    expect(completeConfig(base, { models: { 'deepseek-flash': { maxOutput: 800, contextWindow: 5_000, images: false } } }, 'chat')).toMatchObject({
      maxOutputTokens: 800,
      contextWindow: 5_000,
      images: false,
    })
  })

  it('records no ceiling for an undescribed model on the chat wire, and the catalog guess on the Anthropic wire, which requires one', () => {
    const odd: ModelConfig = { model: 'ds-finetune-x', effort: 'high' }
    expect(completeConfig(odd, {}, 'chat').maxOutputTokens).toBeUndefined()
    expect(completeConfig(odd, {}, 'anthropic').maxOutputTokens).toBe(modelInfo('ds-finetune-x').maxOutput)
    expect(completeConfig(odd, { maxOutputTokens: 500 }, 'chat').maxOutputTokens).toBe(500)
  })

  it('refuses a retired model id with one sentence that names its replacement', () => {
    expect(() => completeConfig({ model: 'deepseek-chat', effort: 'high' }, {}, 'chat')).toThrow(/DeepSeek retired deepseek-chat on .*; use deepseek-flash instead/)
  })
})
