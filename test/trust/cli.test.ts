import { existsSync, readFileSync, writeFileSync, mkdirSync, realpathSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { cliEnv, runCli, sandbox, spawnCli } from '../support/cli.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

function workspace(files: Record<string, unknown>) {
  const made = sandbox()
  const box = { ...made, cwd: realpathSync(made.cwd) }
  for (const [rel, value] of Object.entries(files)) {
    mkdirSync(join(box.cwd, rel, '..'), { recursive: true })
    writeFileSync(join(box.cwd, rel), JSON.stringify(value, null, 2))
  }
  return box
}

const allowBash = { '.rein/settings.json': { permissions: { allow: ['Bash(touch:*)'] } } }

describe('rein trust', () => {
  it('prints exactly what it trusts, records it, lists it, and revokes it', async () => {
    const box = workspace(allowBash)
    const env = cliEnv({ home: box.home })
    const trusted = await runCli(['trust'], { cwd: box.cwd, env })
    expect(trusted.code).toBe(0)
    expect(trusted.stdout).toBe(
      `Trusted ${box.cwd}. These now take effect there:\n  allow rule "Bash(touch:*)" (${join(box.cwd, '.rein', 'settings.json')})\nAn edit to any of them, or a new one, asks again.\n`,
    )
    const listed = await runCli(['trust', '--list'], { cwd: box.root, env })
    expect(listed.stdout).toContain(`${box.cwd} (trusted; trusted `)
    expect(listed.stdout).toContain(`  allow rule "Bash(touch:*)" (${join(box.cwd, '.rein', 'settings.json')})`)
    const revoked = await runCli(['trust', '--revoke', box.cwd], { cwd: box.root, env })
    expect(revoked.stdout).toBe(`${box.cwd} is no longer trusted.\n`)
    expect((await runCli(['trust', '--list'], { cwd: box.cwd, env })).stdout).toBe('No workspace is trusted. `rein trust [dir]` trusts one.\n')
  })

  it('refuses a directory that does not exist, in one sentence', async () => {
    const box = workspace({})
    const run = await runCli(['trust', join(box.root, 'nowhere')], { cwd: box.cwd, env: cliEnv({ home: box.home }) })
    expect(run.code).toBe(2)
    expect(run.stderr.trim()).toBe(`rein: The directory ${join(box.root, 'nowhere')} does not exist.`)
  })
})

describe('project grants through rein -p', () => {
  const touch = (box: { cwd: string }) => [{ toolCalls: [{ name: 'bash', arguments: { command: `touch ${join(box.cwd, 'made')}` } }] }, { text: 'done' }]

  it('an untrusted allow rule is inert and one stderr line says what was ignored and how to trust it', async () => {
    const box = workspace(allowBash)
    mock = await startMockModel({ script: touch(box) })
    const run = await runCli(['-p', 'go'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(existsSync(join(box.cwd, 'made'))).toBe(false)
    const notices = run.stderr.split('\n').filter((line) => line.includes('rein trust'))
    expect(notices).toEqual([`rein: This workspace is not trusted, so it ran without what it defines: allow rule "Bash(touch:*)". Review and trust it with \`rein trust ${box.cwd}\`.`])
  })

  it('the same rule takes effect once the workspace is trusted, or for one run with --trust-project', async () => {
    const box = workspace(allowBash)
    mock = await startMockModel({ script: touch(box) })
    const once = await runCli(['-p', 'go', '--trust-project'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(existsSync(join(box.cwd, 'made'))).toBe(true)
    expect(once.stderr).not.toContain('rein trust')
    expect(existsSync(join(box.home, 'trusted-workspaces.json'))).toBe(false)
    await runCli(['trust'], { cwd: box.cwd, env: cliEnv({ home: box.home }) })
    mock.push(...touch({ cwd: join(box.cwd, 'sub') }))
    mkdirSync(join(box.cwd, 'sub'))
    const trusted = await runCli(['-p', 'go'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(existsSync(join(box.cwd, 'sub', 'made'))).toBe(true)
    expect(trusted.stderr).not.toContain('rein trust')
  })

  it('a trusted hook receives a secret only when its "env" names it', async () => {
    const box = workspace({
      '.claude/settings.json': {
        hooks: {
          SessionStart: [
            { hooks: [{ type: 'command', command: 'echo "named=$DEEPSEEK_API_KEY" > named.txt', env: ['DEEPSEEK_API_KEY'] }] },
            { hooks: [{ type: 'command', command: 'echo "plain=$DEEPSEEK_API_KEY" > plain.txt' }] },
          ],
        },
      },
    })
    mock = await startMockModel({ script: [{ text: 'ok' }] })
    await runCli(['-p', 'go', '--trust-project'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home, key: 'sk-hook-wants-this' }) })
    expect(readFileSync(join(box.cwd, 'named.txt'), 'utf8')).toBe('named=sk-hook-wants-this\n')
    expect(readFileSync(join(box.cwd, 'plain.txt'), 'utf8')).toBe('plain=\n')
  })
})

describe('rein mcp list (issue 17)', () => {
  it('lists servers of an untrusted project file as untrusted, with the command that trusts them', async () => {
    const box = workspace({ '.mcp.json': { mcpServers: { one: { command: 'one-mcp' }, two: { command: 'two-mcp' } } } })
    const run = await runCli(['mcp', 'list'], { cwd: box.cwd, env: cliEnv({ home: box.home }) })
    expect(run.code).toBe(0)
    expect(run.stdout).toBe(
      'one (project, .mcp.json): untrusted, not started\ntwo (project, .mcp.json): untrusted, not started\n' +
        `Run \`rein trust ${box.cwd}\` to trust this workspace (or \`rein mcp trust\` for its servers alone).\n`,
    )
  })
})

describe('rein rpc', () => {
  it('sends one notice event naming what an untrusted workspace defined', async () => {
    const box = workspace(allowBash)
    mock = await startMockModel({ script: [] })
    const child = spawnCli(['rpc'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    const notice = await new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no notice event')), 20_000)
      createInterface({ input: child.stdout }).on('line', (line) => {
        const parsed = JSON.parse(line) as { type?: string; event?: { type?: string } }
        if (parsed.type === 'event' && parsed.event?.type === 'notice') {
          clearTimeout(timer)
          resolve(parsed.event as Record<string, unknown>)
        }
      })
    })
    child.stdin.end()
    await new Promise((resolve) => child.on('close', resolve))
    expect(notice).toMatchObject({ type: 'notice', level: 'warning' })
    expect(notice.message).toContain(`allow rule "Bash(touch:*)". Review and trust it with \`rein trust ${box.cwd}\`.`)
  })
})
