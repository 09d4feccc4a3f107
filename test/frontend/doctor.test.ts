import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { doctorExitCode, doctorReport, doctorText, type DoctorCheck } from '../../src/frontend/doctor/report.js'
import type { DoctorProbes } from '../../src/frontend/doctor/probes.js'
import { REAL_PROBES } from '../../src/frontend/doctor/probes.js'

/** `rein doctor` / `/doctor` (issue 33): one report function, its probes replaced by fakes. */

const KEY = 'sk-doctor-test-secret-0123456789'

function place(): { cwd: string; home: string } {
  const root = mkdtempSync(join(tmpdir(), 'rein-doctor-'))
  const cwd = join(root, 'project')
  const home = join(root, 'home')
  mkdirSync(cwd, { recursive: true })
  mkdirSync(home, { recursive: true })
  return { cwd, home }
}

/** Every program present, the endpoint answering 404, bubblewrap working. */
const healthy: DoctorProbes = {
  program: (command) => ({ found: true, ok: true, firstLine: `${command} version 9.9` }),
  reach: async () => ({ status: 404 }),
  sandbox: () => ({ ok: true }),
}

const byName = (checks: DoctorCheck[], name: string) => checks.filter((c) => c.name === name)

describe('the doctor report', () => {
  it('says ok for a configured machine, names where the key comes from and never prints it', async () => {
    const { cwd, home } = place()
    const checks = await doctorReport({ cwd, home, env: { DEEPSEEK_API_KEY: KEY, DEEPSEEK_BASE_URL: 'http://127.0.0.1:9/v1' }, probes: healthy })
    expect(checks.filter((c) => c.level !== 'ok')).toEqual([])
    expect(byName(checks, 'key')[0].text).toBe('A DeepSeek API key is configured (from DEEPSEEK_API_KEY).')
    expect(byName(checks, 'endpoint')[0].text).toBe('http://127.0.0.1:9/v1 answers (HTTP 404).')
    expect(byName(checks, 'git')[0].text).toBe('git version 9.9')
    expect(byName(checks, 'versions')[0].text).toMatch(/^Rein \d+\.\d+\.\d+\S* on Node\.js v\d+/)
    expect(byName(checks, 'settings')[0].text).toBe('No settings files; Rein runs on its defaults.')
    expect(byName(checks, 'mcp')[0].text).toBe('No MCP servers are configured.')
    const text = doctorText(checks)
    expect(text).not.toContain(KEY)
    expect(text).toMatch(/^ok {4}key {9}A DeepSeek API key/m)
    expect(text.trim().split('\n').at(-1)).toBe('Everything checked is fine.')
    expect(doctorExitCode(checks)).toBe(0)
  })

  it('fails without a key, naming the credentials file it skipped, and exits 1', async () => {
    const { cwd, home } = place()
    writeFileSync(join(home, 'credentials'), `${KEY}\n`, { mode: 0o644 })
    const checks = await doctorReport({ cwd, home, env: {}, probes: healthy })
    const key = byName(checks, 'key')[0]
    expect(key.level).toBe('fail')
    expect(key.text).toContain('has mode 0644, so others can read it')
    expect(doctorText(checks)).not.toContain(KEY)
    expect(doctorExitCode(checks)).toBe(1)
  })

  it('reports a malformed settings file in the loader\'s own sentence and an unknown key as a warning', async () => {
    const { cwd, home } = place()
    mkdirSync(join(cwd, '.rein'))
    writeFileSync(join(cwd, '.rein', 'settings.json'), '{\n  "model": "deepseek-flash",\n  "permissions": {"allow": [}\n}\n')
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ effort: 'high', permisions: { allow: ['Read'] } }))
    const checks = await doctorReport({ cwd, home, env: { DEEPSEEK_API_KEY: KEY }, probes: healthy })
    const settings = byName(checks, 'settings')
    expect(settings).toContainEqual({ name: 'settings', level: 'warn', text: `Settings file ${join(home, 'settings.json')} has a key Rein does not read: "permisions".` })
    expect(settings).toContainEqual({ name: 'settings', level: 'fail', text: expect.stringMatching(/^Settings file .*\.rein\/settings\.json is not valid JSON at line 3, column \d+: .*Fix it and start Rein again\.$/) })
    expect(byName(checks, 'mcp')).toEqual([{ name: 'mcp', level: 'warn', text: 'MCP servers were not checked: a settings file cannot be read.' }])
    expect(doctorExitCode(checks)).toBe(1)
  })

  it('names what an untrusted workspace defines and the MCP servers, starting none', async () => {
    const { cwd, home } = place()
    mkdirSync(join(cwd, '.rein'))
    writeFileSync(join(cwd, '.rein', 'settings.json'), JSON.stringify({ permissions: { allow: ['Bash(npm test)'] } }))
    writeFileSync(join(cwd, '.mcp.json'), JSON.stringify({ mcpServers: { files: { command: 'definitely-not-run-by-doctor' } } }))
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ mcpServers: { notes: { type: 'http', url: 'http://127.0.0.1:9/mcp' } } }))
    const checks = await doctorReport({ cwd, home, env: { DEEPSEEK_API_KEY: KEY }, probes: healthy })
    const trust = byName(checks, 'trust')[0]
    expect(trust.level).toBe('warn')
    expect(trust.text).toMatch(/^This workspace is not trusted, so Rein ignores .*Bash\(npm test\).*; review them and run `rein trust`\.$/)
    const mcp = byName(checks, 'mcp')
    expect(mcp[0]).toEqual({ name: 'mcp', level: 'ok', text: '1 MCP server configured: notes (http, settings); `rein mcp list` starts them and lists their tools.' })
    expect(mcp).toContainEqual({ name: 'mcp', level: 'warn', text: '1 project MCP server will not start until trusted: files; run `rein mcp trust`.' })
  })

  it('warns for a PATH without git, rg or bubblewrap, and a tmux that fails, without failing', async () => {
    const { cwd, home } = place()
    const empty = mkdtempSync(join(tmpdir(), 'rein-doctor-path-'))
    const env = { DEEPSEEK_API_KEY: KEY, PATH: empty }
    // The real probes, on a PATH where nothing is installed.
    const checks = await doctorReport({ cwd, home, env, probes: { reach: healthy.reach } })
    expect(byName(checks, 'git')[0]).toEqual({ name: 'git', level: 'warn', text: 'git is not on PATH; checkpoints, /rewind of files, /review and the git context need it.' })
    expect(byName(checks, 'rg')[0].level).toBe('warn')
    expect(byName(checks, 'tmux')[0].level).toBe('ok')
    const bwrap = byName(checks, 'bubblewrap')[0]
    expect(bwrap.level).toBe('warn')
    expect(bwrap.text).toMatch(/bubblewrap|Linux|seccomp/)
    const failing = await doctorReport({ cwd, home, env, probes: { ...healthy, program: (c) => (c === 'tmux' ? { found: true, ok: false, firstLine: 'tmux: need UTF-8 locale' } : healthy.program(c, [], env)) } })
    expect(byName(failing, 'tmux')[0]).toEqual({ name: 'tmux', level: 'warn', text: "tmux is on PATH but `tmux -V` failed (tmux: need UTF-8 locale); Rein runs without it (the terminal UI's end-to-end tests drive it)." })
    expect(doctorExitCode(checks)).toBe(0)
  })

  it('an unreachable endpoint is one sentence, not a stack: a closed port, and a URL that is no URL', async () => {
    const { cwd, home } = place()
    const server = createServer()
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const port = (server.address() as { port: number }).port
    await new Promise<void>((resolve) => server.close(() => resolve()))
    const closed = await doctorReport({ cwd, home, env: { DEEPSEEK_API_KEY: KEY, DEEPSEEK_BASE_URL: `http://127.0.0.1:${port}` }, probes: { ...healthy, reach: REAL_PROBES.reach } })
    expect(byName(closed, 'endpoint')[0]).toEqual({
      name: 'endpoint',
      level: 'fail',
      text: `Cannot reach http://127.0.0.1:${port}: the connection was refused; check the network and DEEPSEEK_BASE_URL.`,
    })
    const blocked = await doctorReport({ cwd, home, env: { DEEPSEEK_API_KEY: KEY, DEEPSEEK_BASE_URL: 'http://127.0.0.1:9' }, probes: { ...healthy, reach: REAL_PROBES.reach } })
    expect(byName(blocked, 'endpoint')[0].text).toBe(
      'Cannot reach http://127.0.0.1:9: fetch refuses to connect to that port (one browsers block); use another; check the network and DEEPSEEK_BASE_URL.',
    )
    const garbage = await doctorReport({ cwd, home, env: { DEEPSEEK_API_KEY: KEY, DEEPSEEK_BASE_URL: 'not a url' }, probes: healthy })
    expect(byName(garbage, 'endpoint')[0]).toEqual({ name: 'endpoint', level: 'fail', text: 'DEEPSEEK_BASE_URL is not a URL (not a url); set it to e.g. https://api.deepseek.com.' })
  })

  it('hostile: an escape sequence in a configured name does not reach the printed report', async () => {
    const { cwd, home } = place()
    writeFileSync(join(home, 'settings.json'), JSON.stringify({ mcpServers: { '\u001b]0;owned\u0007evil': { command: 'x' } }, '\u001b[2Jkey': 1 }))
    const text = doctorText(await doctorReport({ cwd, home, env: { DEEPSEEK_API_KEY: KEY }, probes: healthy }))
    expect(text).toContain('evil (stdio, settings)')
    expect(text).not.toMatch(/\u001b|\u0007/)
  })
})
