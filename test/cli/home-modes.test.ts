import { afterEach, describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { CLI, cliEnv, sandbox } from '../support/cli.js'

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

/** Every path under `root` whose permissions let anyone but the owner in, with its mode. */
function openToOthers(root: string): string[] {
  const found: string[] = []
  const walk = (path: string): void => {
    const stat = statSync(path)
    if ((stat.mode & 0o077) !== 0) found.push(`${(stat.mode & 0o777).toString(8)} ${path}`)
    if (stat.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name))
  }
  walk(root)
  return found
}

/** Runs the CLI under umask 000 (asynchronously: the mock model answers from this process). */
function underUmask000(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<number | null> {
  const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')
  const child = spawn('sh', ['-c', `umask 000; exec '${process.execPath}' '${CLI}' ${quoted} < /dev/null`], { cwd, env, stdio: 'ignore' })
  return new Promise((resolve) => child.on('close', (status) => resolve(status)))
}

describe('$REIN_HOME is private whatever the umask', () => {
  it('under umask 000, hooks trust, mcp trust and a session create only 0700 directories and 0600 files', async () => {
    const box = sandbox()
    const home = join(box.root, 'fresh-home')
    mkdirSync(join(box.cwd, '.rein'))
    writeFileSync(
      join(box.cwd, '.rein', 'settings.json'),
      JSON.stringify({ hooks: { PostToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: 'true' }] }] } }),
    )
    writeFileSync(join(box.cwd, '.mcp.json'), JSON.stringify({ mcpServers: { x: { command: 'true' } } }))
    mock = await startMockModel({ script: [{ text: 'hi' }] })
    const env = cliEnv({ url: mock.url, home })

    expect(await underUmask000(['hooks', 'trust'], box.cwd, env)).toBe(0)
    expect(openToOthers(home)).toEqual([])
    expect(await underUmask000(['mcp', 'trust'], box.cwd, env)).toBe(0)
    expect(await underUmask000(['-p', 'hello'], box.cwd, cliEnv({ url: mock.url, home }))).toBe(0)
    expect(await underUmask000(['sessions', 'list'], box.cwd, env)).toBe(0)
    expect(openToOthers(home)).toEqual([])
  })
})
