import { afterEach, describe, expect, it } from 'vitest'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'

/** Issue 33 items 8 and 12 from one-shot mode: `rein -p "/name"` runs a built-in of the catalog, never sends its text. */

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

/** The user texts the model received across every request. */
function userTexts(model: MockModel): string[] {
  return model.requests.flatMap((r) =>
    ((r.body as { messages?: { role: string; content: unknown }[] }).messages ?? []).filter((m) => m.role === 'user').map((m) => JSON.stringify(m.content)),
  )
}

describe('built-in commands in rein -p', () => {
  it('/compact --resume <id> compacts that session instead of sending "/compact" to the model', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [{ text: 'First answer.' }, { text: 'Second answer.' }, { text: 'Summary: two questions were answered.' }] })
    const env = cliEnv({ url: mock.url, home: box.home })
    const first = JSON.parse((await runCli(['-p', 'first question', '--output-format', 'json'], { cwd: box.cwd, env })).stdout) as { session_id: string }
    expect((await runCli(['-p', 'second question', '--resume', first.session_id], { cwd: box.cwd, env })).code).toBe(0)
    const compacted = await runCli(['-p', '/compact', '--resume', first.session_id], { cwd: box.cwd, env })
    expect(compacted.code).toBe(0)
    expect(compacted.stdout.trim().length).toBeGreaterThan(0)
    expect(userTexts(mock).some((t) => t.includes('/compact'))).toBe(false)
    const json = await runCli(['-p', '/compact', '--resume', first.session_id, '--output-format', 'json'], { cwd: box.cwd, env })
    expect(JSON.parse(json.stdout)).toMatchObject({ type: 'command', name: 'compact', session_id: first.session_id, replies: [{ text: expect.any(String) }] })
  })

  it('/model with a retired id or a typo is refused at once in one sentence naming the valid models, exit 1', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [] })
    const env = cliEnv({ url: mock.url, home: box.home })
    const retired = await runCli(['-p', '/model deepseek-chat'], { cwd: box.cwd, env })
    expect(retired.code).toBe(1)
    expect(retired.stderr).toMatch(/^rein: DeepSeek retired deepseek-chat on [\d-]+; use one of deepseek-flash, deepseek-v4-pro[^\n]*\.\n/m)
    const typo = await runCli(['-p', '/model deepseek-flsh'], { cwd: box.cwd, env })
    expect(typo.code).toBe(1)
    expect(typo.stderr).toContain('rein: There is no model deepseek-flsh; use one of deepseek-flash, ')
    expect(mock.requests).toHaveLength(0)
  })

  it('a slash word that is no built-in still reaches the model as typed', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [{ text: 'Sure.' }] })
    const result = await runCli(['-p', '/not-a-command please'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(result.code).toBe(0)
    expect(userTexts(mock).some((t) => t.includes('/not-a-command please'))).toBe(true)
  })

  it('/init sends Rein\'s AGENTS.md prompt as the user\'s message and prints the model\'s answer', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [{ text: 'I wrote AGENTS.md.' }] })
    const result = await runCli(['-p', '/init'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(result.code).toBe(0)
    expect(result.stdout).toBe('I wrote AGENTS.md.\n')
    expect(result.stderr).toContain('rein: Asked the model to write AGENTS.md')
    expect(mock.requests).toHaveLength(1)
    expect(userTexts(mock).some((t) => t.includes('Write an AGENTS.md at the root of this repository'))).toBe(true)
    expect(userTexts(mock).some((t) => t.includes('/init'))).toBe(false)
  })

  it('/review outside a git repository is one sentence on stderr, exit 1, and no request', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [] })
    const result = await runCli(['-p', '/review'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`rein: There is nothing to review: ${box.cwd} is not in a git repository.\n`)
    expect(mock.requests).toHaveLength(0)
  })
})
