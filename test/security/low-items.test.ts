import { chmodSync, existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'

/** The three low items of issue 29, end to end through the built CLI. */

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

describe('Bash(echo:*) and a Unicode space', () => {
  for (const [code, space] of [['U+00A0', '\u00a0'], ['U+2003', '\u2003'], ['U+3000', '\u3000'], ['U+FEFF', '\ufeff']] as const) {
    it(`does not allow echo${code}touch x: the call needs approval, and nothing ran`, async () => {
      const box = sandbox()
      const cwd = realpathSync(box.cwd)
      mkdirSync(join(cwd, '.rein'), { recursive: true })
      writeFileSync(join(box.home, 'settings.json'), JSON.stringify({ permissions: { allow: ['Bash(echo:*)'] } }))
      mock = await startMockModel({ script: [{ toolCalls: [{ name: 'bash', arguments: { command: `echo${space}hi; touch ${join(cwd, 'x')}` } }] }, { text: 'done' }] })
      const r = await runCli(['-p', 'go'], { cwd, env: cliEnv({ url: mock.url, home: box.home }) })
      expect(r.code, r.stderr).toBe(0)
      const body = mock.requests.at(-1)!.body as { messages: { role: string; content: string }[] }
      expect(body.messages.filter((m) => m.role === 'tool').at(-1)?.content).toMatch(/^Permission needed/)
      expect(existsSync(join(cwd, 'x'))).toBe(false)
    })
  }
})

describe('--cwd naming a file', () => {
  it('says it is a file, not that it does not exist', async () => {
    const box = sandbox()
    const file = join(box.root, 'hostname')
    writeFileSync(file, 'box\n')
    const r = await runCli(['-p', 'go', '--cwd', file], { cwd: box.cwd, env: cliEnv({ url: 'http://127.0.0.1:9', home: box.home }) })
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain(`The working directory ${file} is a file, not a directory; pass its folder to --cwd.`)
  })

  it('and a path that is missing still says it does not exist', async () => {
    const box = sandbox()
    const r = await runCli(['-p', 'go', '--cwd', join(box.root, 'nowhere')], { cwd: box.cwd, env: cliEnv({ url: 'http://127.0.0.1:9', home: box.home }) })
    expect(r.stderr).toContain('does not exist')
  })
})

describe('a credentials file that is skipped', () => {
  it('with mode 0644 is named with its mode and the command that fixes it', async () => {
    const box = sandbox()
    const file = join(box.home, 'credentials')
    writeFileSync(file, 'DEEPSEEK_API_KEY=sk-readable-by-all-1234\n')
    chmodSync(file, 0o644)
    const r = await runCli(['-p', 'go'], { cwd: box.cwd, env: cliEnv({ url: 'http://127.0.0.1:9', home: box.home, key: null }) })
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain(`the credentials file ${file} has mode 0644, so others can read it and it was skipped; run \`chmod 600 ${file}\``)
    expect(r.stderr).not.toContain('sk-readable-by-all-1234')
  })

  it('that holds no key says so', async () => {
    const box = sandbox()
    const file = join(box.home, 'credentials')
    writeFileSync(file, '# nothing yet\n')
    chmodSync(file, 0o600)
    const r = await runCli(['-p', 'go'], { cwd: box.cwd, env: cliEnv({ url: 'http://127.0.0.1:9', home: box.home, key: null }) })
    expect(r.stderr).toContain(`the credentials file ${file} holds no key`)
  })

  it('with mode 0600 is used', async () => {
    const box = sandbox()
    const file = join(box.home, 'credentials')
    writeFileSync(file, 'DEEPSEEK_API_KEY=sk-owner-only-5678\n')
    chmodSync(file, 0o600)
    mock = await startMockModel({ script: [{ text: 'done' }] })
    const r = await runCli(['-p', 'go'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home, key: null }) })
    expect(r.code, r.stderr).toBe(0)
    expect(mock.requests).toHaveLength(1)
  })
})
