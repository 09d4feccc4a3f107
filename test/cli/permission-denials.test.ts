import { afterEach, describe, expect, it } from 'vitest'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { cliEnv, runCli, sandbox } from '../support/cli.js'

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

describe('rein -p and calls refused because nothing could ask', () => {
  it('ends with one stderr line per refused tool naming the rule that allows it, and lists them as permission_denials', async () => {
    const box = sandbox()
    mock = await startMockModel({
      script: [
        {
          toolCalls: [
            { name: 'bash', arguments: { command: 'touch made-by-bash.txt' }, id: 'call_a' },
            { name: 'bash', arguments: { command: 'touch made-again.txt' }, id: 'call_b' },
          ],
        },
        { toolCalls: [{ name: 'write', arguments: { file_path: join(box.cwd, 'new.txt'), content: 'x' }, id: 'call_c' }] },
        { text: 'I could not make the files.' },
      ],
    })
    const r = await runCli(['-p', 'make files', '--output-format', 'json'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.code).toBe(0)
    expect(existsSync(join(box.cwd, 'made-by-bash.txt'))).toBe(false)
    const result = JSON.parse(r.stdout) as { permission_denials: { tool_name: string; tool_use_id: string; tool_input: unknown }[] }
    expect(result.permission_denials).toEqual([
      { tool_name: 'Bash', tool_use_id: 'call_a', tool_input: { command: 'touch made-by-bash.txt' } },
      { tool_name: 'Bash', tool_use_id: 'call_b', tool_input: { command: 'touch made-again.txt' } },
      { tool_name: 'Write', tool_use_id: 'call_c', tool_input: { file_path: join(box.cwd, 'new.txt'), content: 'x' } },
    ])
    const lines = r.stderr.trim().split('\n')
    expect(lines).toHaveLength(2)
    expect(lines[0]).toMatch(/^rein: 2 Bash calls were refused because nothing could ask for permission; allow with --allow '.+'\.$/)
    expect(lines[1]).toMatch(/^rein: 1 Write call was refused because nothing could ask for permission; allow with --allow '.+'\.$/)
  })

  it('a run with nothing refused reports an empty permission_denials and no extra line', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [{ text: 'hello' }] })
    const r = await runCli(['-p', 'hi', '--output-format', 'json'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(JSON.parse(r.stdout).permission_denials).toEqual([])
    expect(r.stderr).toBe('')
  })
})
