import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

const working = (match: string) => [
  { match, toolCalls: [{ name: 'bash', arguments: { command: 'echo step one' } }] },
  { match, toolCalls: [{ name: 'bash', arguments: { command: 'echo step two' } }] },
  { match, text: 'all steps done' },
]

describe('budgets: rein -p --max-budget-usd and a batch task\'s max_tokens and max_cost_usd', () => {
  it('rein -p --max-budget-usd stops the run before the request that would pass the budget, saying so', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: working('spend') })
    const run = await runCli(['-p', 'spend', '--permission-mode', 'bypass', '--max-budget-usd', '0.0000001', '--output-format', 'json'], {
      cwd: box.cwd,
      env: cliEnv({ url: mock.url, home: box.home }),
    })
    expect(mock.requests).toHaveLength(1)
    expect(run.stdout + run.stderr).toMatch(/the run reached its budget of \$1e-7 \(spent \$0\.\d{6}\); it was stopped before the next model request\./)
    expect(run.code).not.toBe(0)
  })

  it('a batch task over its max_tokens fails with one sentence, and --max-cost-usd is the default of tasks that set none', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [...working('capped'), ...working('defaulted'), ...working('generous')] })
    const file = join(box.root, 'budgets.jsonl')
    writeFileSync(
      file,
      [
        { id: 'capped', cwd: 'project', prompt: 'capped', permission_mode: 'bypass', max_tokens: 1, max_cost_usd: 100 },
        { id: 'defaulted', cwd: 'project', prompt: 'defaulted', permission_mode: 'bypass' },
        { id: 'generous', cwd: 'project', prompt: 'generous', permission_mode: 'bypass', max_cost_usd: 100 },
      ]
        .map((task) => JSON.stringify(task))
        .join('\n'),
    )
    const out = join(box.root, 'out.jsonl')
    const run = await runCli(['batch', file, '--out', out, '--concurrency', '1', '--max-cost-usd', '0.0000001'], {
      cwd: box.root,
      env: cliEnv({ url: mock.url, home: box.home }),
      timeoutMs: 60_000,
    })
    expect(run.code).toBe(1)
    const results = new Map(readFileSync(out, 'utf8').trim().split('\n').map((line) => [JSON.parse(line).id, JSON.parse(line)]))
    expect(results.get('capped')).toMatchObject({ status: 'failed' })
    expect(results.get('capped').error).toMatch(/^the run reached its budget of 1 tokens \(used \d+\); it was stopped before the next model request\.$/)
    expect(results.get('defaulted').error).toMatch(/^the run reached its budget of \$1e-7 /)
    expect(results.get('generous')).toMatchObject({ status: 'completed', result: 'all steps done' })
    expect(mock.requests).toHaveLength(5)
  })
})
