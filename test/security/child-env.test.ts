import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { childEnv } from '../../src/tools/child-env.js'
import { spawn } from 'node:child_process'
import { CLI, cliEnv, runCli, sandbox } from '../support/cli.js'
import { startMockModel, type MockModel, type MockResponse } from '../support/mock-model.js'
import { freshDatabase, postgresUrl } from '../support/postgres-db.js'

/**
 * Secrets never reach a child (issue 29). Each kind of process Rein starts — the bash tool, a background job, a hook
 * command, an MCP stdio server, Rein's own git calls, a batch task's `setup` — writes its environment to a file; the
 * file must hold none of the planted secrets and still hold an ordinary variable. The session log must not hold them
 * either, the store URL's password included.
 */

const KEY = 'sk-sentinel-child-env-5c1d9a'
const PLANTED: Record<string, string> = {
  REIN_STORE: 'jsonl',
  DATABASE_URL: 'postgres://app:db-sentinel-pass-41@127.0.0.1:1/app',
  PGPASSWORD: 'pg-sentinel-pass-93',
  PGPASSFILE: '/nonexistent/pgpass-sentinel',
  GITHUB_TOKEN: 'ghp_sentinel_token_8e2f',
  my_api_key: 'lower-sentinel-key-27',
  AWS_SECRET_ACCESS_KEY: 'aws-sentinel-secret-11',
  SECRET_KEY_BASE: 'rails-sentinel-base-65',
  // The store URL under a name that does not look secret, and the model key copied under another.
  BACKUP_TARGET: 'postgres://rein:url-sentinel-pass-58@127.0.0.1:1/fleet',
  COPIED: KEY,
  HARMLESS: 'visible-marker',
}
const SECRETS = [KEY, ...Object.entries(PLANTED).filter(([name]) => !['HARMLESS', 'REIN_STORE'].includes(name)).map(([, v]) => v)]

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

function put(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, text)
}

/** A child's environment as it wrote it (`env` output, or NUL-separated from /proc). */
function envOf(file: string): string {
  expect(existsSync(file), `${file} was not written: the child did not run`).toBe(true)
  return readFileSync(file, 'utf8').replace(/\0/g, '\n')
}

function expectClean(env: string, what: string): void {
  expect(env, `${what}: the ordinary variable is missing`).toContain('HARMLESS=visible-marker')
  for (const secret of SECRETS) expect(env, `${what} received ${secret}`).not.toContain(secret)
  expect(env, `${what} received REIN_STORE`).not.toMatch(/^REIN_STORE=/m)
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
}

function expectLogClean(home: string): void {
  for (const file of filesUnder(join(home, 'sessions'))) {
    const text = readFileSync(file, 'utf8')
    for (const secret of [KEY, 'url-sentinel-pass-58', 'db-sentinel-pass-41', 'ghp_sentinel_token_8e2f']) expect(text, file).not.toContain(secret)
  }
}

async function run(box: { cwd: string; home: string }, script: MockResponse[], args: string[] = [], extra: Record<string, string> = {}) {
  mock = await startMockModel({ script })
  return runCli(['-p', 'go', ...args], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home, key: KEY, extra: { ...PLANTED, ...extra } }) })
}

const bash = (command: string, background = false): MockResponse => ({
  toolCalls: [{ name: 'bash', arguments: { command, ...(background ? { run_in_background: true } : {}) } }],
})

describe('no child Rein starts receives a secret', () => {
  it('the bash tool, whose command prints the secrets back to the model', async () => {
    const box = sandbox()
    const out = join(box.root, 'bash.env')
    await run(box, [bash(`env > ${out}; env`), { text: 'done' }], ['--permission-mode', 'bypass'])
    expectClean(envOf(out), 'bash')
    const toolText = JSON.stringify(mock!.requests.at(-1)!.body)
    expect(toolText).toContain('HARMLESS=visible-marker')
    for (const secret of SECRETS) expect(toolText).not.toContain(secret)
    expectLogClean(box.home)
  })

  it('a background job', async () => {
    const box = sandbox()
    const out = join(box.root, 'job.env')
    await run(
      box,
      [bash(`env > ${out}.tmp && mv ${out}.tmp ${out}`, true), { toolCalls: [{ name: 'bash', arguments: { command: `while [ ! -f ${out} ]; do sleep 0.05; done` } }] }, { text: 'done' }],
      ['--permission-mode', 'bypass'],
    )
    expectClean(envOf(out), 'background job')
  })

  it("a hook command, even the user's own", async () => {
    const box = sandbox()
    const out = join(box.root, 'hook.env')
    put(join(box.home, 'settings.json'), JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: `env > ${out}` }] }] } }))
    await run(box, [{ text: 'done' }])
    expectClean(envOf(out), 'hook')
  })

  it('an MCP stdio server', async () => {
    const box = sandbox()
    const out = join(box.root, 'mcp.env')
    const server = resolve(import.meta.dirname, '../mcp/fixtures/server.mjs')
    put(join(box.home, 'settings.json'), JSON.stringify({ mcpServers: { fx: { command: 'sh', args: ['-c', `env > ${out}; exec "${process.execPath}" "${server}" stdio`], env: { HARMLESS: 'visible-marker' } } } }))
    await run(box, [{ text: 'done' }])
    expectClean(envOf(out), 'MCP server')
  })

  it("Rein's own git calls (the workspace probe and checkpoints)", async () => {
    const box = sandbox()
    const bin = join(box.root, 'bin')
    const out = join(box.root, 'git.env')
    const realGit = ['/usr/bin/git', '/usr/local/bin/git', '/bin/git'].find((p) => existsSync(p))!
    put(join(bin, 'git'), `#!/bin/sh\nenv >> ${out}\nexec ${realGit} "$@"\n`)
    chmodSync(join(bin, 'git'), 0o755)
    put(join(box.cwd, 'a.txt'), 'one\n')
    await run(box, [{ toolCalls: [{ name: 'write', arguments: { file_path: 'b.txt', content: 'two\n' } }] }, { text: 'done' }], ['--permission-mode', 'bypass'], {
      PATH: `${bin}:${process.env.PATH}`,
    })
    expectClean(envOf(out), 'git')
  })

  it("a custom command's !`cmd` line", async () => {
    const box = sandbox()
    const out = join(box.root, 'bang.env')
    put(join(box.cwd, '.rein', 'commands', 'dump.md'), `---\nallowed-tools: Bash\n---\nFacts: !\`env > ${out}\`\n`)
    mock = await startMockModel({ script: [{ text: 'done' }] })
    const r = await runCli(['-p', '/dump', '--trust-project'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home, key: KEY, extra: PLANTED }) })
    expect(r.code, r.stderr).toBe(0)
    expectClean(envOf(out), 'a command line')
  })

  it('a variable that looks secret reaches bash when the user passes it on by name (passEnv), and no other child', async () => {
    const box = sandbox()
    const bashOut = join(box.root, 'bash.env')
    const hookOut = join(box.root, 'hook.env')
    put(
      join(box.home, 'settings.json'),
      JSON.stringify({ passEnv: ['GITHUB_TOKEN', 'DEEPSEEK_API_KEY'], hooks: { SessionStart: [{ hooks: [{ type: 'command', command: `env > ${hookOut}` }] }] } }),
    )
    await run(box, [bash(`env > ${bashOut}`), { text: 'done' }], ['--permission-mode', 'bypass'])
    const env = envOf(bashOut)
    expect(env).toContain('GITHUB_TOKEN=ghp_sentinel_token_8e2f')
    // Rein's own key is never passed on, whatever the setting says.
    expect(env).not.toContain(KEY)
    expect(envOf(hookOut)).not.toContain('ghp_sentinel_token_8e2f')
  })

  it('passEnv in an untrusted project file is ignored', async () => {
    const box = sandbox()
    const out = join(box.root, 'bash.env')
    put(join(box.cwd, '.rein', 'settings.json'), JSON.stringify({ passEnv: ['GITHUB_TOKEN'] }))
    const r = await run(box, [bash(`env > ${out}`), { text: 'done' }], ['--permission-mode', 'bypass'])
    expect(envOf(out)).not.toContain('ghp_sentinel_token_8e2f')
    expect(r.stderr).toContain('passing "GITHUB_TOKEN" on to commands')
  })
})

describe('childEnv, the one builder', () => {
  it('keeps what a definition names, strips a value copied under an innocent name, and leaves short values alone', () => {
    const env = childEnv(
      { HOOK_TOKEN: 'needed-by-hook-1', COPY: 'copy-of-store-url-secret-99', SHLVL: '1', FLAG_TOKEN: '1', PATH: '/bin' },
      { pass: ['HOOK_TOKEN'], secretValues: ['postgres://u:copy-of-store-url-secret-99@h/db'] },
    )
    expect(env).toEqual({ HOOK_TOKEN: 'needed-by-hook-1', SHLVL: '1', PATH: '/bin' })
  })

  for (const name of ['GITHUB_TOKEN', 'npm_token', 'OPENAI_API_KEY', 'Stripe_Secret', 'DB_PASSWORD', 'GPG_PASSPHRASE', 'GOOGLE_CREDENTIALS', 'VAULT_TOKEN_FILE', 'MY_KEY']) {
    it(`strips ${name}, a name that looks like a secret`, () => {
      expect(childEnv({ [name]: 'value-of-secret', PATH: '/bin' })).toEqual({ PATH: '/bin' })
    })
  }

  for (const name of ['TOKENIZERS_PARALLELISM', 'KEYTIMEOUT', 'SSH_AUTH_SOCK', 'MONKEY', 'PASSWORDLESS']) {
    it(`keeps ${name}, which does not`, () => {
      expect(childEnv({ [name]: 'x', PATH: '/bin' })).toEqual({ [name]: 'x', PATH: '/bin' })
    })
  }
})

function batchTasks(root: string, out: string, prompt = 'task'): string {
  const file = join(root, 'tasks.jsonl')
  writeFileSync(file, JSON.stringify({ id: 't1', cwd: 'project', prompt, setup: `env > ${out}`, permission_mode: 'bypass' }) + '\n')
  return file
}

const STORE_PASSWORD = 'store-sentinel-pw-3141'
/** The task's agent writes its bash environment and echoes the store password, which the log must redact. */
const taskScript = (command: string): MockResponse[] => [bash(command), { text: 'done' }]

/** The task's bash writes inside its workspace: the one file of that name under `root`. */
function taskFile(root: string, name: string): string {
  const found = filesUnder(root).filter((f) => f.endsWith(`/${name}`))
  expect(found, `${name} under ${root}`).toHaveLength(1)
  return found[0]
}

function expectTaskChildrenClean(setupOut: string, bashOut: string): void {
  for (const [file, what] of [[setupOut, 'setup'], [bashOut, 'the task agent’s bash']] as const) {
    const text = envOf(file)
    expectClean(text, what)
    expect(text).not.toContain(STORE_PASSWORD)
  }
}

async function expectSessionRedacted(root: string, env: NodeJS.ProcessEnv, args: string[] = []): Promise<void> {
  const id = (JSON.parse(readFileSync(join(root, 'out.jsonl'), 'utf8').trim()) as { session_id: string }).session_id
  const exported = await runCli(['sessions', 'export', id, ...args], { cwd: root, env })
  expect(exported.code, exported.stderr).toBe(0)
  expect(exported.stdout).toContain('[redacted]')
  expect(exported.stdout).not.toContain(STORE_PASSWORD)
}

describe('a batch task', () => {
  it('with the local store: its setup command and its agent get no secret, though REIN_STORE holds a password URL', async () => {
    const box = sandbox()
    const setupOut = join(box.root, 'setup.env')
    mock = await startMockModel({ script: taskScript('env > task-bash.env') })
    const storeUrl = `postgres://rein:${STORE_PASSWORD}@127.0.0.1:1/fleet`
    const env = cliEnv({ url: mock.url, home: box.home, key: KEY, extra: { ...PLANTED, REIN_STORE: storeUrl } })
    const ran = await runCli(['batch', batchTasks(box.root, setupOut), '--store', 'jsonl', '--out', join(box.root, 'out.jsonl')], { cwd: box.root, env, timeoutMs: 60_000 })
    expect(ran.code, ran.stderr).toBe(0)
    expectTaskChildrenClean(setupOut, taskFile(box.root, 'task-bash.env'))
    expectLogClean(box.home)
  })
})

describe.runIf(postgresUrl)('a batch task run by a worker on a PostgreSQL store', () => {
  it('its setup command and its agent get neither the store URL nor its password, and the log redacts the password', async () => {
    const box = sandbox()
    const url = new URL(await freshDatabase())
    url.password = STORE_PASSWORD
    const setupOut = join(box.root, 'setup.env')
    mock = await startMockModel({ script: taskScript('env') })
    const env = cliEnv({ url: mock.url, home: box.home, key: KEY, extra: { ...PLANTED, REIN_STORE: url.toString() } })
    // A prompt that quotes the password: the log must hold it redacted.
    const file = batchTasks(box.root, setupOut, `connect with ${STORE_PASSWORD}`)
    expect((await runCli(['batch', file, '--detach'], { cwd: box.root, env })).code).toBe(0)
    // The task asks for bypass and a setup command, which a worker runs only when started to allow them.
    const worker = spawn(process.execPath, [CLI, 'worker', '--max-permission-mode', 'bypass', '--allow-setup', '--workdir', join(box.root, 'work')], { cwd: box.root, env, stdio: 'ignore' })
    try {
      const followed = await runCli(['batch', file, '--out', join(box.root, 'out.jsonl')], { cwd: box.root, env, timeoutMs: 60_000 })
      expect(followed.code, followed.stderr + readFileSync(join(box.root, 'out.jsonl'), 'utf8')).toBe(0)
    } finally {
      worker.kill('SIGTERM')
      await new Promise((done) => worker.on('close', done))
    }
    expectClean(envOf(setupOut), 'setup')
    expect(envOf(setupOut)).not.toContain(STORE_PASSWORD)
    // The task's bash prints its environment, so it reaches the model as a tool result.
    // A leaked secret would reach the model as [redacted]; a clean environment has nothing to redact.
    const toolResult = JSON.stringify((mock!.requests.at(-1)!.body as { messages: { role: string }[] }).messages.filter((m) => m.role === 'tool'))
    expect(toolResult).toContain('HARMLESS=visible-marker')
    expect(toolResult).not.toMatch(/REIN_STORE=|DATABASE_URL=|PGPASSWORD=|GITHUB_TOKEN=|BACKUP_TARGET=|COPIED=/)
    await expectSessionRedacted(box.root, env)
  })
})

describe('childEnv and short values', () => {
  it('a secret-looking variable holding true does not strip every other variable holding true', () => {
    expect(childEnv({ USE_TOKEN: 'true', CI: 'true', PATH: '/bin' })).toEqual({ CI: 'true', PATH: '/bin' })
  })

  it("a short store password under another name is stripped", () => {
    expect(childEnv({ DB_PW: 'hunter', PATH: '/bin' }, { secretValues: ['postgres://rein:hunter@db/rein'] })).toEqual({ PATH: '/bin' })
  })
})
