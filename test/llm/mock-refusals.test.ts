import { afterEach, describe, expect, it } from 'vitest'
import { startMockModel, type MockModel } from '../support/mock-model.js'

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

const hi = [{ role: 'user', content: 'hi' }]

async function post(path: string, body: Record<string, unknown>): Promise<{ status: number; message: string }> {
  const response = await fetch(`${mock!.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const json = (await response.json()) as { error?: { message?: string } }
  return { status: response.status, message: json.error?.message ?? '' }
}
const chat = (extra: Record<string, unknown>) => post('/chat/completions', { model: 'deepseek-flash', messages: hi, ...extra })
const anthropic = (extra: Record<string, unknown>, path = '/anthropic/v1/messages') =>
  post(path, { model: 'deepseek-flash', max_tokens: 100, messages: hi, ...extra })

describe("the mock refuses what DeepSeek documents as an error, before the script is used", () => {
  it('answers 422 for a reasoning effort DeepSeek does not know, on both wires', async () => {
    mock = await startMockModel({ script: [{ text: 'ok', repeat: true }] })
    expect(await chat({ reasoning_effort: 'bogus' })).toMatchObject({ status: 422, message: expect.stringContaining('reasoning_effort') })
    expect(await anthropic({ output_config: { effort: 'bogus' } })).toMatchObject({ status: 422, message: expect.stringContaining('output_config.effort') })
    expect(mock.requests.every((r) => r.refused !== undefined && !r.exhausted)).toBe(true)
  })

  it('answers 422 for a thinking type other than enabled or disabled', async () => {
    mock = await startMockModel({ script: [{ text: 'ok', repeat: true }] })
    expect((await chat({ thinking: { type: 'weird' } })).status).toBe(422)
    expect((await anthropic({ thinking: { type: 'weird' } })).status).toBe(422)
  })

  it('answers 422 for a temperature outside [0, 2] and a top_p outside [0, 1]', async () => {
    mock = await startMockModel({ script: [{ text: 'ok', repeat: true }] })
    expect(await chat({ temperature: 5 })).toMatchObject({ status: 422, message: expect.stringContaining('temperature') })
    expect((await chat({ top_p: 1.5 })).status).toBe(422)
    expect((await chat({ temperature: 2, top_p: 1 })).status).toBe(200)
  })

  it('answers 422 for a user id that is not [a-zA-Z0-9_-] of at most 512 characters, on both wires', async () => {
    mock = await startMockModel({ script: [{ text: 'ok', repeat: true }] })
    expect(await chat({ user_id: 'alice@example.com' })).toMatchObject({ status: 422, message: expect.stringContaining('user_id') })
    expect((await chat({ user_id: 'a'.repeat(513) })).status).toBe(422)
    expect((await anthropic({ metadata: { user_id: 'has space' } })).status).toBe(422)
    expect((await chat({ user_id: 'tenant_7-task-3' })).status).toBe(200)
  })

  it('answers 400 Model Not Exist for an unknown model on the chat wire', async () => {
    mock = await startMockModel({ script: [{ text: 'ok', repeat: true }] })
    expect(await chat({ model: 'gpt-4o' })).toEqual({ status: 400, message: 'Model Not Exist' })
    expect((await chat({ model: 'claude-sonnet-4' })).status).toBe(400)
  })

  it('on the Anthropic wire answers 400 for an unknown name not starting with claude, and serves claude names', async () => {
    mock = await startMockModel({ script: [{ text: 'ok', repeat: true }] })
    expect((await anthropic({ model: 'gpt-4o' })).status).toBe(400)
    expect((await anthropic({ model: 'claude-opus-4-1' })).status).toBe(200)
    expect((await anthropic({ model: 'claude-haiku-4' })).status).toBe(200)
  })

  it('checks max_tokens against the model a claude name maps to', async () => {
    mock = await startMockModel({ script: [{ text: 'ok', repeat: true }] })
    expect(await anthropic({ model: 'claude-opus-4', max_tokens: 384_001 })).toMatchObject({ status: 400, message: expect.stringContaining('[1, 384000]') })
    expect((await anthropic({ max_tokens: 0 })).status).toBe(400)
    expect((await chat({ max_tokens: 'many' })).status).toBe(400)
  })

  it('serves models it was started with and refuses the catalog ones it was not', async () => {
    mock = await startMockModel({ script: [{ text: 'ok', repeat: true }], models: ['ds-finetune-x'] })
    expect((await chat({ model: 'ds-finetune-x' })).status).toBe(200)
    expect((await chat({ model: 'deepseek-flash' })).status).toBe(400)
  })

  it('serves the Messages API reference path /anthropic/messages as well as /anthropic/v1/messages', async () => {
    mock = await startMockModel({ script: [{ text: 'ok', repeat: true }] })
    expect((await anthropic({}, '/anthropic/messages')).status).toBe(200)
    expect((await anthropic({}, '/anthropic/v1/messages')).status).toBe(200)
    expect((await anthropic({}, '/v1/anthropic/v1/messages')).status).toBe(404)
    expect(mock.requests.slice(0, 2).map((r) => r.wire)).toEqual(['anthropic', 'anthropic'])
  })
})
