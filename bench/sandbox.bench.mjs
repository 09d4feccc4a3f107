// What the sandbox costs per command: `bash -c true` unconfined, under bubblewrap with the seccomp filter, with domains
// allowed in the session's shared network namespace (nsenter, then bwrap; the forwarder started once), and with a
// forwarder started inside each command (a `node` that listens before bash starts: the way without nsenter). Medians
// of RUNS runs each, printed with the ratio to unconfined. Needs the build (`npm run build`) and bubblewrap. Temp
// directories only.
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { resolveSandbox } from '../dist/sandbox/policy.js'
import { probeSandbox } from '../dist/sandbox/probe.js'
import { Sandbox } from '../dist/sandbox/sandbox.js'

const RUNS = 40
const probe = probeSandbox()
if (!probe.ok) {
  console.log(`sandbox bench skipped: ${probe.reason}`)
  process.exit(0)
}

const base = realpathSync(mkdtempSync('/var/tmp/rein-sandbox-bench-'))
const workspace = join(base, 'work')
const home = join(base, 'home')
mkdirSync(workspace, { recursive: true })
mkdirSync(home, { recursive: true })

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const once = (child) =>
  new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))))
  })
const measure = async (start) => {
  const times = []
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now()
    await once(start())
    times.push(performance.now() - t)
  }
  return median(times)
}

const open = (allowedDomains, sharedNetwork = true) =>
  Sandbox.open({
    policy: resolveSandbox({ user: { enabled: true, network: { allowedDomains } } }).policy,
    workspace,
    home,
    reinHome: join(home, '.rein'),
    stateDir: join(base, `state-${allowedDomains.length}-${sharedNetwork}`),
    sharedNetwork,
  })

try {
  const plain = await open([])
  const proxied = await open(['registry.npmjs.org'])
  const perCommand = await open(['registry.npmjs.org'], false)
  const rows = [
    ['unconfined bash -c true', await measure(() => spawn('bash', ['-c', 'true'], { cwd: workspace, stdio: 'ignore' }))],
    ['sandboxed (bwrap + seccomp)', await measure(() => plain.spawn('true', { cwd: workspace, env: process.env }).child)],
    ['with domains, shared namespace', await measure(() => proxied.spawn('true', { cwd: workspace, env: process.env }).child)],
    ['with domains, forwarder per command', await measure(() => perCommand.spawn('true', { cwd: workspace, env: process.env }).child)],
  ]
  const baseline = rows[0][1]
  for (const [name, ms] of rows) console.log(`${name.padEnd(34)} ${ms.toFixed(1).padStart(7)} ms  ×${(ms / baseline).toFixed(1)}`)
  console.log(`(median of ${RUNS} runs each)`)
  await plain.close()
  await proxied.close()
  await perCommand.close()
} finally {
  rmSync(base, { recursive: true, force: true })
}
