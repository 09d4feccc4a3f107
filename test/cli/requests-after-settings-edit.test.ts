import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { WIRES } from '../llm/helpers.js'

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

function writeSettings(cwd: string, settings: Record<string, unknown>): void {
  mkdirSync(join(cwd, '.rein'), { recursive: true })
  writeFileSync(join(cwd, '.rein', 'settings.json'), JSON.stringify(settings))
}

/** The `config` of every `request/header` in the session's log, read straight from the file. */
function loggedConfigs(home: string): Record<string, unknown>[] {
  const dir = join(home, 'sessions', readdirSync(join(home, 'sessions'))[0])
  const file = join(dir, readdirSync(dir).find((f) => f.endsWith('.jsonl')) as string)
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => JSON.parse(line))
    .filter((e) => e.type === 'request/header')
    .map((e) => e.data.config)
}

// A model the built-in catalog knows, whose ceiling the user lowered; and one only settings describe, without a
// maximum output (on the Anthropic wire its required max_tokens is then the catalog's guess, recorded in the header).
const CASES: { model: string; before: Record<string, { maxOutput?: number; contextWindow: number; images?: boolean }> }[] = [
  { model: 'deepseek-flash', before: { 'deepseek-flash': { maxOutput: 5_000, contextWindow: 200_000 } } },
  { model: 'ds-finetune-x', before: { 'ds-finetune-x': { contextWindow: 64_000, images: false } } },
]
const AFTER = {
  'deepseek-flash': { maxOutput: 1_000, contextWindow: 20_000, images: false },
  'ds-finetune-x': { maxOutput: 2_000, contextWindow: 9_000, images: true },
}

describe('the log alone reproduces every request after settings.models is edited', () => {
  for (const wire of WIRES) {
    for (const { model, before } of CASES) {
      it(`verify passes and show --requests gives the bytes the model received, for ${model} on the ${wire} wire`, async () => {
        const box = sandbox()
        writeSettings(box.cwd, { wire, model, models: before })
        mock = await startMockModel({ models: [model], script: [{ toolCalls: [{ name: 'ls', arguments: { path: '.' } }] }, { text: 'done' }] })
        const env = cliEnv({ url: mock.url, home: box.home })
        const run = await runCli(['-p', 'look around', '--output-format', 'json'], { cwd: box.cwd, env })
        expect(run.stderr).toBe('')
        expect(run.code).toBe(0)
        const id = JSON.parse(run.stdout).session_id as string
        const received = mock.requests.map((r) => r.body)
        expect(received).toHaveLength(2)
        for (const config of loggedConfigs(box.home)) expect(config.contextWindow).toBe(before[model].contextWindow)

        writeSettings(box.cwd, { wire, model, models: AFTER })
        const verify = await runCli(['sessions', 'verify', id], { cwd: box.cwd, env })
        expect(verify.stdout).toMatch(/no problems/)
        expect(verify.code).toBe(0)
        const shown = await runCli(['sessions', 'show', id, '--requests', '--json'], { cwd: box.cwd, env })
        expect(shown.code).toBe(0)
        const bodies = shown.stdout.trim().split('\n').map((line) => JSON.parse(line))
        expect(bodies.map((b) => b.matches)).toEqual([true, true])
        expect(bodies.map((b) => b.body)).toEqual(received)
      })
    }
  }

  it('records the output ceiling a body uses in the header: the guess on the Anthropic wire, nothing on the chat wire', async () => {
    const ceilings: Record<string, unknown> = {}
    for (const wire of WIRES) {
      const box = sandbox()
      writeSettings(box.cwd, { wire, model: 'ds-finetune-x', models: { 'ds-finetune-x': { contextWindow: 64_000 } } })
      mock = await startMockModel({ models: ['ds-finetune-x'], script: [{ text: 'hi' }] })
      const run = await runCli(['-p', 'hello'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
      expect(run.code).toBe(0)
      ceilings[wire] = loggedConfigs(box.home)[0].maxOutputTokens
      const sent = (mock.requests[0].body as { max_tokens?: number }).max_tokens
      if (wire === 'anthropic') expect(sent).toBeLessThanOrEqual(ceilings[wire] as number)
      else expect(sent).toBeUndefined()
      await mock.close()
      mock = undefined
    }
    expect(ceilings).toEqual({ chat: undefined, anthropic: 32_768 })
  })
})
