import { afterEach, describe, expect, it } from 'vitest'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { cliEnv, runCli, sandbox } from '../support/cli.js'

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

describe('an answer cut by the output limit', () => {
  it('rein -p prints the partial answer, then one sentence saying the limit was hit and how to raise it, and exits 1', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [{ text: 'The first half of', finish: 'length' }] })
    const r = await runCli(['-p', 'write a lot'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.code).toBe(1)
    expect(r.stdout).toBe('The first half of\n')
    expect(r.stderr).toBe(
      'rein: The answer hit the output limit before it finished; raise models.deepseek-flash.maxOutput in settings.json, or ask for a shorter answer.\n',
    )
  })
})
