import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { cliEnv, runCli } from '../support/cli.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { requireBwrap } from './bwrap-required.js'

// `rein -p` against the mock model with the sandbox on, in default mode: the model's bash calls run under bubblewrap
// with no prompt, and what leaves the workspace fails with the sandbox's note in the tool result the model reads.

const bwrap = requireBwrap()

interface Box {
  root: string
  cwd: string
  home: string
  rein: string
}

let boxes: Box[] = []
let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})
afterAll(() => boxes.forEach((b) => rmSync(b.root, { recursive: true, force: true })))

/** Outside /tmp, which is private inside the sandbox, so the home directory is visible (read-only) to commands. */
function box(): Box {
  const root = realpathSync(mkdtempSync('/var/tmp/rein-sandbox-cli-'))
  const b = { root, cwd: join(root, 'project'), home: join(root, 'home'), rein: join(root, 'home/.rein') }
  mkdirSync(b.cwd, { recursive: true })
  mkdirSync(b.rein, { recursive: true })
  boxes.push(b)
  return b
}

async function run(b: Box, commands: string[], flags: string[]) {
  mock = await startMockModel({ script: [...commands.map((command) => ({ toolCalls: [{ name: 'bash', arguments: { command } }] })), { text: 'done' }] })
  const env = cliEnv({ url: mock.url, home: b.rein, extra: { HOME: b.home } })
  const r = await runCli(['-p', 'go', '--permission-mode', 'default', ...flags], { cwd: b.cwd, env })
  const last = mock.requests.filter((q) => q.path.endsWith('/chat/completions')).at(-1)?.body as { messages: { role: string; content: unknown }[] }
  const results = last.messages.filter((m) => m.role === 'tool').map((m) => String(m.content))
  return { ...r, results, metas: toolResultMetas(b.rein) }
}

/** The `meta` of every tool/result in the run's session log. */
function toolResultMetas(rein: string): Record<string, unknown>[] {
  const sessions = join(rein, 'sessions')
  const logs = readdirSync(sessions, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.jsonl'))
  return logs.flatMap((log) =>
    readFileSync(join(sessions, log), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; data?: { meta?: Record<string, unknown> } })
      .filter((e) => e.type === 'tool/result')
      .map((e) => e.data?.meta ?? {}),
  )
}

describe.runIf(bwrap.available)('rein --sandbox in default mode', () => {
  let b: Box
  let r: Awaited<ReturnType<typeof run>>
  beforeAll(async () => {
    b = box()
    r = await run(b, ['touch inside && echo made', 'echo x > ~/outside'], ['--sandbox'])
  })

  it('runs a sandboxed command with no prompt', () => {
    expect(r.code, r.stderr).toBe(0)
    expect(r.results[0]).toBe('made\n[exit code: 0]')
    expect(existsSync(join(b.cwd, 'inside'))).toBe(true)
  })

  it('fails a write outside the workspace with the sandbox note in the tool result', () => {
    expect(existsSync(join(b.home, 'outside'))).toBe(false)
    expect(r.results[1]).toMatch(/Read-only file system/)
    expect(r.results[1]).toMatch(/\[sandbox\] The sandbox kept .* read-only/)
    expect(r.results[1]).toMatch(/\[exit code: 1\]$/)
  })

  it('says in the log that each command ran sandboxed', () => {
    expect(r.metas.map((m) => m.sandboxed)).toEqual([true, true])
  })
})

describe.runIf(bwrap.available)('the sandbox and project files', () => {
  it('a project file cannot switch the sandbox off, and the user is told', async () => {
    const b = box()
    writeFileSync(join(b.rein, 'settings.json'), JSON.stringify({ sandbox: { enabled: true } }))
    mkdirSync(join(b.cwd, '.rein'))
    writeFileSync(join(b.cwd, '.rein/settings.json'), JSON.stringify({ sandbox: { enabled: false } }))
    const r = await run(b, ['echo x > ~/outside'], [])
    expect(r.stderr).toMatch(/The sandbox ignored what a project file asked for: sandbox.enabled: false \(a project file may not turn the sandbox off\)/)
    expect(r.metas[0]?.sandboxed).toBe(true)
    expect(existsSync(join(b.home, 'outside'))).toBe(false)
  })

  it('without the sandbox the same command asks, and with no one to ask it does not run', async () => {
    const b = box()
    const r = await run(b, ['touch inside'], ['--no-sandbox'])
    expect(r.results[0]).toMatch(/^Permission needed/)
    expect(existsSync(join(b.cwd, 'inside'))).toBe(false)
  })
})

describe('rein sandbox', () => {
  it('shows the policy after the project layer narrowed it, and what was ignored', async () => {
    const b = box()
    writeFileSync(join(b.rein, 'settings.json'), JSON.stringify({ sandbox: { enabled: true, network: { allowedDomains: ['registry.npmjs.org', 'example.com'] } } }))
    mkdirSync(join(b.cwd, '.rein'))
    writeFileSync(join(b.cwd, '.rein/settings.json'), JSON.stringify({ sandbox: { network: { allowedDomains: ['example.com', 'evil.example'] } } }))
    const env = cliEnv({ home: b.rein, extra: { HOME: b.home } })
    const json = await runCli(['sandbox', '--json'], { cwd: b.cwd, env })
    const shown = JSON.parse(json.stdout) as { policy: { enabled: boolean; allowedDomains: string[] }; ignored: string[]; available: boolean }
    expect(shown.policy.enabled).toBe(true)
    expect(shown.policy.allowedDomains).toEqual(['example.com'])
    expect(shown.ignored).toEqual(['sandbox.network.allowedDomains: evil.example (a project file may not add a domain)'])
    expect(shown.available).toBe(bwrap.available)
    const text = await runCli(['sandbox'], { cwd: b.cwd, env })
    expect(text.stdout).toMatch(/^Sandbox: on/)
    expect(text.stdout).toMatch(/^Network: only example.com, through Rein's proxy$/m)
  })
})
