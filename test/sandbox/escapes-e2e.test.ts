import { execFileSync } from 'node:child_process'
import { accessSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer as createNetServer, type Server } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requireBwrap } from './bwrap-required.js'
import { openWorld, SECRET, type SandboxWorld } from './sandbox-fixture.js'

const bwrap = requireBwrap()

/** Live processes (zombies aside) running the marker sleep of the setsid test. */
function sleepers(): string[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('86399') && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
      } catch {
        return false // The process ended while we looked.
      }
    })
}

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK)
    return true
  } catch {
    return false // Not ours to write: the test that needs it is skipped.
  }
}

describe.runIf(bwrap.available)('a sandboxed command cannot escape', () => {
  let world: SandboxWorld
  beforeAll(async () => {
    world = await openWorld()
  })
  afterAll(async () => world?.close())

  describe('by writing outside the workspace', () => {
    it('to the home directory, with the sandbox note in the result', async () => {
      const r = await world.run(`echo x > ${world.home}/outside`)
      expect(r.code).not.toBe(0)
      expect(existsSync(join(world.home, 'outside'))).toBe(false)
      expect(r.note).toMatch(/^\[sandbox\] The sandbox kept .*read-only/)
    })

    it('to /etc', async () => {
      const r = await world.run('touch /etc/rein-sandbox-escape')
      expect(r.code).not.toBe(0)
      expect(existsSync('/etc/rein-sandbox-escape')).toBe(false)
    })

    it('to a sibling directory', async () => {
      const r = await world.run(`echo changed > ${world.sibling}/file.txt`)
      expect(r.code).not.toBe(0)
      expect(readFileSync(join(world.sibling, 'file.txt'), 'utf8')).toBe('original')
    })

    it('through a symlink in the workspace', async () => {
      symlinkSync(world.sibling, join(world.workspace, 'to-sibling'))
      const r = await world.run('echo changed > to-sibling/file.txt; ln -s ../sibling made-inside; echo changed > made-inside/file.txt')
      expect(r.out).toMatch(/Read-only file system/)
      expect(readFileSync(join(world.sibling, 'file.txt'), 'utf8')).toBe('original')
    })

    it('through a hard link made inside', async () => {
      const r = await world.run(`ln ${world.home}/victim.txt hard-link && echo changed > hard-link`)
      expect(r.code).not.toBe(0)
      expect(readFileSync(join(world.home, 'victim.txt'), 'utf8')).toBe('original')
    })

    it("to the workspace's .git/hooks, .git/config and Rein's and Claude Code's config files", async () => {
      const r = await world.run(
        'echo "#!/bin/sh" > .git/hooks/pre-commit; echo "[core] hooksPath=/x" >> .git/config; echo x > .rein/settings.json; echo x > .mcp.json; echo ok',
      )
      expect(r.out.match(/Read-only file system/g)).toHaveLength(4)
      expect(existsSync(join(world.workspace, '.git/hooks/pre-commit'))).toBe(false)
      expect(readFileSync(join(world.workspace, '.git/config'), 'utf8')).not.toMatch(/hooksPath/)
      expect(readFileSync(join(world.workspace, '.mcp.json'), 'utf8')).toBe('{}')
    })

    it('around the read-only paths, by renaming the directory that holds them and building a new one', async () => {
      mkdirSync(join(world.workspace, '.claude'), { recursive: true })
      writeFileSync(join(world.workspace, '.claude/settings.json'), '{}')
      // A fresh sandbox, so the new .claude is seen at start.
      const { Sandbox } = await import('../../src/sandbox/sandbox.js')
      const fresh = await Sandbox.open({ policy: world.sandbox.policy, workspace: world.workspace, home: world.home, reinHome: world.reinHome })
      const started = fresh.spawn(
        'mv .git .git-old; mv .claude .claude-old; mv .git/hooks .git/h2; mkdir -p .git/hooks && echo "echo pwned" > .git/hooks/pre-commit; echo x > .claude/settings.json',
        { cwd: world.workspace, env: process.env },
      )
      let out = ''
      started.child.stderr.on('data', (c: Buffer) => (out += c))
      started.child.stdout.on('data', (c: Buffer) => (out += c))
      await new Promise((resolve) => started.child.on('close', resolve))
      await fresh.close()
      expect(out.match(/Device or resource busy/g), out).toHaveLength(3)
      expect(existsSync(join(world.workspace, '.git-old'))).toBe(false)
      expect(readdirSync(join(world.workspace, '.git/hooks')).filter((f) => !f.endsWith('.sample'))).toEqual([])
      expect(readFileSync(join(world.workspace, '.claude/settings.json'), 'utf8')).toBe('{}')
    })

    it('by planting .git/commondir, which would send git to hooks and config elsewhere', async () => {
      const r = await world.run('echo /var/tmp/evil-git > .git/commondir && echo planted')
      expect(r.out).toBe('planted\n')
      expect(existsSync(join(world.workspace, '.git/commondir'))).toBe(false)
      expect(r.note).toContain(`The sandbox removed ${world.workspace}/.git/commondir`)
    })

    it('to the private /tmp of another session, which is not the host /tmp', async () => {
      const r = await world.run('echo inside > /tmp/rein-sandbox-marker && cat /tmp/rein-sandbox-marker')
      expect(r.out.trim()).toBe('inside')
      expect(existsSync('/tmp/rein-sandbox-marker')).toBe(false)
    })
  })

  describe('by reading what is masked', () => {
    it.each([
      ['an SSH key', '.ssh/id_ed25519'],
      ['cloud credentials', '.aws/credentials'],
      ['the GitHub CLI token', '.config/gh/hosts.yml'],
      ['.netrc', '.netrc'],
      ["Rein's own home", '.rein/settings.json'],
    ])('%s', async (_what, relative) => {
      const r = await world.run(`cat ${world.home}/${relative}; ls -a ${world.home}/${relative.split('/')[0]}`)
      expect(r.out).not.toContain(SECRET)
    })

    it('a file named by a Read deny glob, also through a symlink', async () => {
      symlinkSync(join(world.workspace, 'secrets/.env'), join(world.workspace, 'env-link'))
      const r = await world.run('cat secrets/.env; cat env-link')
      expect(r.out).not.toContain(SECRET)
    })

    it('a masked file through a symlink to it', async () => {
      symlinkSync(join(world.home, '.ssh/id_ed25519'), join(world.workspace, 'key-link'))
      const r = await world.run(`cat key-link; cat ${world.home}/.ssh/id_ed25519`)
      expect(r.out).not.toContain(SECRET)
      expect(r.note).toContain(`The sandbox hides ${world.home}/.ssh/id_ed25519`)
    })

    it("Rein's environment through /proc", async () => {
      process.env.REIN_SANDBOX_TEST_MARKER = SECRET
      const env = { ...process.env, REIN_SANDBOX_TEST_MARKER: 'withheld' }
      const r = await world.run(`cat /proc/${process.pid}/environ; cat /proc/${process.ppid}/environ; for f in /proc/[0-9]*/environ; do cat $f; done`, env)
      delete process.env.REIN_SANDBOX_TEST_MARKER
      expect(r.out).not.toContain(SECRET)
      expect(r.out).toMatch(new RegExp(`/proc/${process.pid}/environ: No such file`))
    })
  })

  describe('by acting on the host', () => {
    it('killing Rein', async () => {
      const r = await world.run(`kill -9 ${process.pid}`)
      expect(r.code).not.toBe(0)
      expect(r.out).toMatch(/No such process/)
    })

    it('leaving a setsid nohup child behind', async () => {
      await world.run('setsid nohup sleep 86399 > /dev/null 2>&1 & echo started')
      // The kernel kills what is left in the PID namespace as its init exits; give that teardown a bounded moment.
      let survivors = sleepers()
      for (let i = 0; i < 50 && survivors.length; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        survivors = sleepers()
      }
      expect(survivors).toEqual([])
    })

    it('gaining privileges: no capabilities, no_new_privs set, no mounts', async () => {
      const r = await world.run('grep -E "^(CapEff|NoNewPrivs|Seccomp):" /proc/self/status; mount -t tmpfs none /mnt 2>/dev/null || echo mount-refused; unshare -r true 2>/dev/null || echo unshare-refused')
      expect(r.out).toMatch(/CapEff:\s+0000000000000000/)
      expect(r.out).toMatch(/NoNewPrivs:\s+1/)
      expect(r.out).toMatch(/Seccomp:\s+2/)
      expect(r.out).toMatch(/mount-refused\nunshare-refused/)
    })

    it('reaching a Unix socket under /run or named by SSH_AUTH_SOCK', async () => {
      const socketPath = join(world.home, 'agent.sock')
      const agent: Server = createNetServer((c) => c.end('agent-answered'))
      await new Promise<void>((resolve) => agent.listen(socketPath, resolve))
      const { Sandbox } = await import('../../src/sandbox/sandbox.js')
      process.env.SSH_AUTH_SOCK = socketPath
      const withAgent = await Sandbox.open({ policy: world.sandbox.policy, workspace: world.workspace, home: world.home, reinHome: world.reinHome })
      delete process.env.SSH_AUTH_SOCK
      const started = withAgent.spawn(`python3 -c "import socket; s=socket.socket(socket.AF_UNIX); s.connect('${socketPath}'); print(s.recv(99))"; ls /run; echo "[$SSH_AUTH_SOCK]"`, {
        cwd: world.workspace,
        env: { ...process.env, SSH_AUTH_SOCK: socketPath },
      })
      let out = ''
      started.child.stdout.on('data', (c: Buffer) => (out += c))
      started.child.stderr.on('data', (c: Buffer) => (out += c))
      await new Promise((resolve) => started.child.on('close', resolve))
      await withAgent.close()
      agent.close()
      expect(out).not.toContain('agent-answered')
      expect(out).toMatch(/Connection refused|No such file/)
      expect(out).toMatch(/^\[\]$/m)
    })

    // Needs a writable /run on the host to plant the service (root, as in CI).
    it.runIf(writable('/run'))('reaching a service socket under /run, as the Docker socket is', async () => {
      const socketPath = `/run/rein-sandbox-test-${process.pid}.sock`
      const service: Server = createNetServer((c) => c.end('service-answered'))
      await new Promise<void>((resolve) => service.listen(socketPath, resolve))
      try {
        const connect = `python3 -c "import socket; s=socket.socket(socket.AF_UNIX); s.connect('${socketPath}'); print(s.recv(99))"`
        const r = await world.run(`${connect}; ls -A /run; ${connect.replace(socketPath, '/var/run/' + socketPath.slice(5))}`)
        expect(r.out).not.toContain('service-answered')
        expect(r.out).not.toContain('rein-sandbox-test')
      } finally {
        service.close()
      }
    })
  })

  describe('by the network directly', () => {
    it.each([
      ['an IP address over TCP', 'exec 3<>/dev/tcp/1.1.1.1/80'],
      ['an IPv6 address', 'exec 3<>/dev/tcp/2606:4700:4700::1111/80'],
      ['DNS', 'getent hosts example.com'],
      ['UDP', `python3 -c "import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('8.8.8.8', 53))"`],
    ])('%s', async (_what, command) => {
      const r = await world.run(command)
      expect(r.code).not.toBe(0)
    })

    it('with no domain allowed, a command that tries the network is told so', async () => {
      const r = await world.run('curl -sS http://example.com/')
      expect(r.note).toMatch(/^\[sandbox\] The sandbox has no network: only the user can allow domains, with sandbox.network.allowedDomains\. /)
    })

    it("a service on the host's 127.0.0.1", async () => {
      const r = await world.run(`exec 3<>/dev/tcp/127.0.0.1/${world.hostPort}`)
      expect(r.code).not.toBe(0)
      expect(r.out).toMatch(/Connection refused/)
    })
  })
})

describe.runIf(bwrap.available)('ordinary work runs inside the sandbox', () => {
  let world: SandboxWorld
  beforeAll(async () => {
    world = await openWorld()
  })
  afterAll(async () => world?.close())

  it('pipes, redirects and heredocs', async () => {
    const r = await world.run("printf 'a\\nb\\n' | grep b > out.txt; cat <<'EOF' >> out.txt\nheredoc line\nEOF\ncat out.txt")
    expect(r.out).toBe('b\nheredoc line\n')
    expect(r.code).toBe(0)
  })

  it('git status, diff, commit, branch and worktree', async () => {
    const r = await world.run(
      [
        'echo more >> README.md',
        'git status --short',
        'git diff --stat',
        'git -c user.name=t -c user.email=t@t commit -qam second',
        'git branch feature',
        'git worktree add -q .worktrees/feature feature',
        'git branch --list',
        'git log --oneline | wc -l',
      ].join(' && '),
    )
    expect(r.code, r.out).toBe(0)
    expect(r.out).toMatch(/M README.md/)
    expect(r.out).toMatch(/feature/)
    expect(r.out.trim().endsWith('2')).toBe(true)
    expect(execFileSync('git', ['log', '--oneline'], { cwd: world.workspace, encoding: 'utf8' }).split('\n')).toHaveLength(3)
  })

  it('git commit in a linked worktree, whose git directory lies outside it, and its hooks stay read-only', async () => {
    const linked = join(world.root, 'linked')
    execFileSync('git', ['worktree', 'add', '-q', '-b', 'linked', linked], { cwd: world.workspace, stdio: 'ignore' })
    const { Sandbox } = await import('../../src/sandbox/sandbox.js')
    const inLinked = await Sandbox.open({ policy: world.sandbox.policy, workspace: linked, home: world.home, reinHome: world.reinHome })
    const started = inLinked.spawn(
      `echo w > w.txt && git add w.txt && git -c user.name=t -c user.email=t@t commit -qm in-linked && echo committed; echo x > ${world.workspace}/.git/hooks/post-commit; echo x >> ${world.workspace}/.git/config`,
      { cwd: linked, env: process.env },
    )
    let out = ''
    started.child.stdout.on('data', (c: Buffer) => (out += c))
    started.child.stderr.on('data', (c: Buffer) => (out += c))
    await new Promise((resolve) => started.child.on('close', resolve))
    await inLinked.close()
    expect(out).toMatch(/^committed$/m)
    expect(out.match(/Read-only file system/g)).toHaveLength(2)
    expect(execFileSync('git', ['log', '-1', '--format=%s', 'linked'], { cwd: world.workspace, encoding: 'utf8' }).trim()).toBe('in-linked')
    expect(existsSync(join(world.workspace, '.git/hooks/post-commit'))).toBe(false)
  })

  it('a test server on 127.0.0.1 and its client in one command', async () => {
    const r = await world.run(
      'python3 -m http.server 8765 --bind 127.0.0.1 >/dev/null 2>&1 & for i in $(seq 50); do curl -s http://127.0.0.1:8765/ >/dev/null && break; sleep 0.1; done; curl -s -o /dev/null -w "%{http_code}\\n" http://127.0.0.1:8765/',
    )
    expect(r.out.trim()).toBe('200')
  })

  it('npm install, npm ci and npm test with a package from the workspace, no network needed', async () => {
    const app = join(world.workspace, 'app')
    mkdirSync(join(app, 'dep'), { recursive: true })
    writeFileSync(join(app, 'dep/package.json'), JSON.stringify({ name: 'dep', version: '1.0.0', main: 'index.js' }))
    writeFileSync(join(app, 'dep/index.js'), 'module.exports = 41\n')
    const test = `node -e "console.log(require('dep') + 1)"`
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', scripts: { test }, dependencies: { dep: 'file:./dep' } }))
    const quiet = '--no-audit --no-fund --loglevel=error >/dev/null 2>&1'
    const r = await world.run(`cd app && npm install ${quiet} && rm -rf node_modules && npm ci ${quiet} && npm test --silent`)
    expect(r.out.trim(), r.out).toBe('42')
  })

  it('a command writing to /tmp and to the workspace', async () => {
    const r = await world.run('echo scratch > /tmp/x && cat /tmp/x && touch inside && ls inside')
    expect(r.out).toBe('scratch\ninside\n')
    expect(existsSync(join(world.workspace, 'inside'))).toBe(true)
    rmSync(join(world.workspace, 'inside'))
  })
})
