import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { resolveSandbox } from '../../src/sandbox/policy.js'
import { Sandbox } from '../../src/sandbox/sandbox.js'

/**
 * One sandbox per test file over a throw-away world: a home with credential stores, a `$REIN_HOME`, a git workspace
 * with hooks and config files, a sibling directory, and an HTTP server on the host's 127.0.0.1 that the proxy may
 * reach under the name `allowed.test` only (a test-only resolver; no internet).
 */
export interface SandboxWorld {
  root: string
  home: string
  reinHome: string
  workspace: string
  sibling: string
  hostPort: number
  sandbox: Sandbox
  run(command: string, env?: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string; note?: string; refusals: string[] }>
  close(): Promise<void>
}

export const SECRET = 'SECRET-KEY-MATERIAL-7f3a'

export async function openWorld(options: { allowedDomains?: string[]; sharedNetwork?: boolean } = {}): Promise<SandboxWorld> {
  // Outside /tmp on purpose: inside, /tmp is the session's private directory, so a world under it would be out of sight.
  const root = realpathSync(mkdtempSync(join('/var/tmp', 'rein-sandbox-world-')))
  const home = join(root, 'home')
  const reinHome = join(home, '.rein')
  const workspace = join(root, 'work')
  const sibling = join(root, 'sibling')
  for (const dir of [join(home, '.ssh'), join(home, '.aws'), join(home, '.config/gh'), reinHome, workspace, sibling, join(workspace, 'secrets')]) {
    mkdirSync(dir, { recursive: true })
  }
  writeFileSync(join(home, '.ssh/id_ed25519'), SECRET)
  writeFileSync(join(home, '.aws/credentials'), SECRET)
  writeFileSync(join(home, '.config/gh/hosts.yml'), SECRET)
  writeFileSync(join(home, '.netrc'), SECRET)
  writeFileSync(join(home, 'victim.txt'), 'original')
  writeFileSync(join(reinHome, 'settings.json'), `{"secret":"${SECRET}"}`)
  writeFileSync(join(sibling, 'file.txt'), 'original')
  const git = (...args: string[]) => execFileSync('git', ['-c', 'init.defaultBranch=main', ...args], { cwd: workspace, stdio: 'ignore' })
  git('init', '-q')
  writeFileSync(join(workspace, 'README.md'), 'hello\n')
  writeFileSync(join(workspace, 'secrets/.env'), SECRET)
  writeFileSync(join(workspace, '.gitignore'), '.env\n')
  mkdirSync(join(workspace, '.rein'))
  writeFileSync(join(workspace, '.rein/settings.json'), '{}')
  writeFileSync(join(workspace, '.mcp.json'), '{}')
  git('add', '.')
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'init')

  const server: Server = createServer((req, res) => res.end(`host-service ${req.headers.host ?? ''} ${req.url ?? ''}`))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const hostPort = (server.address() as AddressInfo).port

  const { policy } = resolveSandbox({
    user: {
      enabled: true,
      network: { allowedDomains: options.allowedDomains ?? [] },
      filesystem: { denyRead: ['**/.env'] },
    },
  })
  const sandbox = await Sandbox.open({
    policy,
    workspace,
    home,
    reinHome,
    stateDir: join(root, 'state'),
    ...(options.sharedNetwork !== undefined ? { sharedNetwork: options.sharedNetwork } : {}),
    proxy: {
      lookup: async (host) => (host === 'allowed.test' || host === 'rebind.test' ? ['127.0.0.1'] : host.endsWith('.wild.test') ? ['127.0.0.1'] : []),
      testOnlyLoopbackHosts: ['allowed.test', 'api.wild.test'],
    },
  })

  const run: SandboxWorld['run'] = (command, env = { ...process.env, HOME: home }) =>
    new Promise((resolve) => {
      const started = sandbox.spawn(command, { cwd: workspace, env })
      let out = ''
      started.child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')))
      started.child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')))
      started.child.on('close', (code) => {
        const report = started.report(out)
        resolve({ code, out, ...(report.note ? { note: report.note } : {}), refusals: report.refusals.map((r) => r.host) })
      })
    })

  return {
    root, home, reinHome, workspace, sibling, hostPort, sandbox, run,
    async close() {
      await sandbox.close()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      rmSync(root, { recursive: true, force: true })
    },
  }
}
