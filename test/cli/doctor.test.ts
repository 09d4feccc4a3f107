import { mkdirSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'

/** `rein doctor` end to end: the built CLI against the mock model server, and the same report as `/doctor` in `rein -p`. */

let mock: MockModel
beforeEach(async () => {
  mock = await startMockModel({ script: [] })
})
afterEach(() => mock.close())

/** A loopback port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

interface Check {
  name: string
  level: 'ok' | 'warn' | 'fail'
  text: string
}

describe('rein doctor', () => {
  it('reaches the mock endpoint, prints one line per check without the key, and exits 0; --json holds the same checks', async () => {
    const box = sandbox()
    const env = cliEnv({ url: mock.url, home: box.home, key: 'sk-doctor-cli-secret' })
    const text = await runCli(['doctor'], { cwd: box.cwd, env })
    expect(text.stderr).toBe('')
    expect(text.code).toBe(0)
    expect(text.stdout).toContain(`ok    endpoint    ${mock.url.replace(/\/$/, '')}`)
    expect(text.stdout).not.toContain('sk-doctor-cli-secret')
    // One GET of the base URL, carrying no key; no model request.
    expect(mock.requests.map((r) => r.method)).toEqual(['GET'])
    expect(JSON.stringify(mock.requests[0].headers)).not.toContain('sk-doctor-cli-secret')
    const json = await runCli(['doctor', '--json'], { cwd: box.cwd, env })
    const report = JSON.parse(json.stdout) as { ok: boolean; checks: Check[] }
    expect(report.ok).toBe(true)
    expect(report.checks.map((c) => c.name)).toEqual(expect.arrayContaining(['key', 'endpoint', 'versions', 'git', 'rg', 'bubblewrap', 'settings', 'trust', 'mcp']))
    expect(report.checks.find((c) => c.name === 'key')).toEqual({ name: 'key', level: 'ok', text: 'A DeepSeek API key is configured (from DEEPSEEK_API_KEY).' })
  })

  it('hostile: no key, a closed port, a malformed settings file and a PATH without git give one sentence each and exit 1', async () => {
    const box = sandbox()
    mkdirSync(join(box.cwd, '.rein'))
    writeFileSync(join(box.cwd, '.rein', 'settings.json'), '{"model": }')
    const port = await closedPort()
    const env = { ...cliEnv({ url: `http://127.0.0.1:${port}`, home: box.home, key: null }), PATH: join(box.root, 'no-programs-here') }
    const result = await runCli(['doctor', '--json'], { cwd: box.cwd, env })
    expect(result.code).toBe(1)
    expect(result.stderr).toBe('')
    const checks = (JSON.parse(result.stdout) as { checks: Check[] }).checks
    const level = (name: string) => checks.filter((c) => c.name === name).map((c) => c.level)
    expect(level('key')).toEqual(['fail'])
    expect(checks.find((c) => c.name === 'endpoint')?.text).toBe(`Cannot reach http://127.0.0.1:${port}: the connection was refused; check the network and DEEPSEEK_BASE_URL.`)
    expect(level('git')).toEqual(['warn'])
    expect(checks.find((c) => c.name === 'settings')).toMatchObject({ level: 'fail', text: expect.stringMatching(/\.rein\/settings\.json is not valid JSON at line 1/) })
    for (const c of checks) expect(c.text).not.toMatch(/\n\s+at /)
  })

  it('/doctor in rein -p prints the same report and sends nothing to the model', async () => {
    const box = sandbox()
    const result = await runCli(['-p', '/doctor'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^ok {4}key {9}A DeepSeek API key is configured/m)
    expect(result.stdout).toMatch(/^ok {4}endpoint {4}/m)
    expect(mock.requests.filter((r) => r.method !== 'GET')).toHaveLength(0)
  })
})
