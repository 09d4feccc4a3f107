import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { requireBwrap } from './bwrap-required.js'
import { openWorld, type SandboxWorld } from './sandbox-fixture.js'

const bwrap = requireBwrap()

/** Sends raw HTTP/1.1 requests over one kept-alive connection to the proxy inside the sandbox; prints each status line. */
const keptAlive = (requests: string[]) =>
  `python3 -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", 3128))
f = s.makefile("rb")
for raw in sys.argv[1:]:
    s.sendall(raw.encode().decode("unicode_escape").encode())
    line = f.readline().decode().strip()
    print(line)
    length = 0
    while True:
        h = f.readline().decode()
        if h in ("\\r\\n", ""): break
        if h.lower().startswith("content-length:"): length = int(h.split(":")[1])
    f.read(length)
    if line.split()[1] != "200": break
' ${requests.map((r) => `'${r}'`).join(' ')}`

describe.runIf(bwrap.available)("the sandbox's network goes through Rein's proxy only", () => {
  let world: SandboxWorld
  let port: number
  beforeAll(async () => {
    world = await openWorld({ allowedDomains: ['allowed.test', 'rebind.test', '*.wild.test'] })
    port = world.hostPort
  })
  afterAll(async () => world?.close())

  it('an allowed name is reached over plain HTTP through the proxy', async () => {
    const r = await world.run(`curl -s http://allowed.test:${port}/hello`)
    expect(r.out).toBe(`host-service allowed.test:${port} /hello`)
    expect(r.refusals).toEqual([])
  })

  it('an allowed name is reached through a CONNECT tunnel, as HTTPS would be', async () => {
    const r = await world.run(`curl -s --proxytunnel http://allowed.test.:${port}/tunnelled`)
    expect(r.out).toMatch(/^host-service allowed\.test\.?:\d+ \/tunnelled$/)
  })

  it('an explicit wildcard allows a subdomain but not the bare name', async () => {
    const r = await world.run(`curl -s http://api.wild.test:${port}/; echo; curl -s -o /dev/null -w '%{http_code}' http://wild.test:${port}/`)
    expect(r.out).toBe(`host-service api.wild.test:${port} /\n403`)
  })

  it('a foreign host is refused, and the result names it', async () => {
    const r = await world.run(`curl -s -w ' %{http_code}' http://evil.example/`)
    expect(r.out).toBe('The sandbox refused a connection to evil.example (not in sandbox.network.allowedDomains).\n 403')
    expect(r.refusals).toEqual(['evil.example'])
    expect(r.note).toContain('The sandbox refused a connection to evil.example (not in sandbox.network.allowedDomains).')
  })

  it.each([
    ['a look-alike with the allowed name as a prefix', 'allowed.test.evil.example'],
    ['a look-alike with the allowed name as a suffix', 'evilallowed.test'],
  ])('%s is refused', async (_what, host) => {
    const r = await world.run(`curl -s -o /dev/null -w '%{http_code}' --proxytunnel http://${host}:${port}/`)
    expect(r.refusals).toEqual([host])
  })

  it('an IP literal is refused even when it is the address of an allowed name', async () => {
    const r = await world.run(`curl -s --noproxy '' -o /dev/null -w '%{http_code}' http://127.0.0.1:${port}/; curl -s --noproxy '' -o /dev/null -p http://[::1]:${port}/`)
    expect(r.out).toMatch(/^403/)
    expect(r.refusals).toEqual(['127.0.0.1', '[::1]'])
  })

  it('an allowed name that resolves to 127.0.0.1 is refused', async () => {
    const r = await world.run(`curl -s http://rebind.test:${port}/`)
    expect(r.out).toBe('The sandbox refused a connection to rebind.test (it resolves to a loopback, private or link-local address).\n')
  })

  it('a user part in the authority is refused', async () => {
    const r = await world.run(keptAlive([`GET http://me@allowed.test:${port}/ HTTP/1.1\\r\\nHost: allowed.test:${port}\\r\\n\\r\\n`]))
    expect(r.out.trim()).toBe('HTTP/1.1 403 Forbidden')
  })

  it('a second host on a kept-alive connection is checked again and refused', async () => {
    const first = `GET http://allowed.test:${port}/one HTTP/1.1\\r\\nHost: allowed.test:${port}\\r\\n\\r\\n`
    const second = 'GET http://evil.example/two HTTP/1.1\\r\\nHost: evil.example\\r\\n\\r\\n'
    const r = await world.run(keptAlive([first, second]))
    expect(r.out.trim().split('\n')).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 403 Forbidden'])
    expect(r.refusals).toEqual(['evil.example'])
  })

  it('a Host header that names another host than the request line is refused', async () => {
    const r = await world.run(keptAlive([`GET http://allowed.test:${port}/ HTTP/1.1\\r\\nHost: evil.example\\r\\n\\r\\n`]))
    expect(r.out.trim()).toBe('HTTP/1.1 403 Forbidden')
    expect(r.refusals).toEqual(['evil.example'])
  })

  it("the user's NODE_OPTIONS reach the command but not the forwarder", async () => {
    const r = await world.run('echo "[$NODE_OPTIONS]"; env | grep -c REIN_HELD || true', { ...process.env, HOME: world.home, NODE_OPTIONS: '--require /nonexistent/hook.js' })
    expect(r.out).toBe('[--require /nonexistent/hook.js]\n0\n')
  })

  it('a test server on 127.0.0.1 inside is reached directly, not through the proxy', async () => {
    const r = await world.run(
      'python3 -m http.server 8766 --bind 127.0.0.1 >/dev/null 2>&1 & for i in $(seq 50); do curl -s http://127.0.0.1:8766/ >/dev/null && break; sleep 0.1; done; curl -s -o /dev/null -w "%{http_code}" http://127.0.0.1:8766/',
    )
    expect(r.out).toBe('200')
    expect(r.refusals).toEqual([])
  })
})

describe.runIf(bwrap.available)("the session's commands share one network namespace with the forwarder in it", () => {
  let world: SandboxWorld
  beforeAll(async () => {
    world = await openWorld({ allowedDomains: ['allowed.test'] })
  })
  afterAll(async () => world?.close())

  it('a command starts no forwarder of its own: no node runs beside it', async () => {
    const r = await world.run('cat /proc/[0-9]*/comm | sort -u | tr "\\n" " "')
    expect(r.out).toContain('bash')
    expect(r.out).not.toContain('node')
  })

  it('a server one command keeps running on 127.0.0.1 is reached by a later command', async () => {
    const server = world.sandbox.spawn('exec python3 -m http.server 8767 --bind 127.0.0.1', { cwd: world.workspace, env: { ...process.env, HOME: world.home } })
    try {
      const r = await world.run('for i in $(seq 50); do curl -s -o /dev/null http://127.0.0.1:8767/ && break; sleep 0.1; done; curl -s -o /dev/null -w "%{http_code}" http://127.0.0.1:8767/')
      expect(r.out).toBe('200')
    } finally {
      process.kill(-server.child.pid!, 'SIGKILL')
    }
  })

  it('the host\'s own 127.0.0.1 services stay out of reach', async () => {
    const r = await world.run(`curl -s --noproxy '*' -o /dev/null -w "%{http_code}" http://127.0.0.1:${world.hostPort}/ || true`)
    expect(r.out).toBe('000')
  })
})

describe.runIf(bwrap.available)('without a shared namespace (no nsenter), a forwarder runs inside each command', () => {
  let world: SandboxWorld
  beforeAll(async () => {
    world = await openWorld({ allowedDomains: ['allowed.test'], sharedNetwork: false })
  })
  afterAll(async () => world?.close())

  it('the forwarder runs beside the command', async () => {
    const r = await world.run('cat /proc/[0-9]*/comm | sort -u | tr "\\n" " "')
    expect(r.out).toContain('node')
  })

  it('an allowed name is reached and a foreign one refused', async () => {
    const r = await world.run(`curl -s http://allowed.test:${world.hostPort}/x; echo; curl -s -o /dev/null -w '%{http_code}' http://evil.example/`)
    expect(r.out).toBe(`host-service allowed.test:${world.hostPort} /x\n403`)
    expect(r.refusals).toEqual(['evil.example'])
  })

  it("the user's NODE_OPTIONS reach the command but not the forwarder", async () => {
    const r = await world.run('echo "[$NODE_OPTIONS]"; env | grep -c REIN_HELD || true', { ...process.env, HOME: world.home, NODE_OPTIONS: '--require /nonexistent/hook.js' })
    expect(r.out).toBe('[--require /nonexistent/hook.js]\n0\n')
  })
})
