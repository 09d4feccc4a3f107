import { spawnSync } from 'node:child_process'

/**
 * Whether the sandbox tests can run here. Without bubblewrap they fail with one sentence, unless
 * `REIN_TEST_WITHOUT_BWRAP=1` says this machine knowingly has none (then they are skipped).
 */
export function requireBwrap(): { available: boolean } {
  const r = spawnSync('bwrap', ['--unshare-all', '--die-with-parent', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--', 'true'])
  if (r.status === 0) return { available: true }
  if (process.env.REIN_TEST_WITHOUT_BWRAP === '1') return { available: false }
  const why = r.error ? 'bwrap is not installed' : `bwrap cannot make namespaces here (${String(r.stderr).trim()})`
  throw new Error(`The sandbox tests need bubblewrap: ${why}; install it (apt-get install bubblewrap) or set REIN_TEST_WITHOUT_BWRAP=1 to skip them.`)
}
