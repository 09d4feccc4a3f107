import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { TITLE_SYSTEM } from '../../src/titles/title-request.js'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

describe('model-made titles and rein -p', () => {
  it('make no title request in print mode even when the user turned them on, so the run neither pays nor waits', async () => {
    const box = sandbox()
    writeFileSync(join(box.home, 'settings.json'), JSON.stringify({ sessionTitles: 'model' }))
    mock = await startMockModel({ script: [{ text: 'Four.' }, { text: 'Arithmetic', system: TITLE_SYSTEM }] })
    const r = await runCli(['-p', 'What is 2 + 2?', '--output-format', 'json'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({ type: 'result', result: 'Four.' })
    expect(mock.requests).toHaveLength(1)
  })
})
