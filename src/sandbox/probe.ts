import { spawnSync } from 'node:child_process'
import { seccompArchOf } from './seccomp/filter.js'

export type SandboxProbe = { ok: true } | { ok: false; reason: string }

let cached: SandboxProbe | undefined

/**
 * Whether this machine can run Rein's sandbox: Linux, an architecture the seccomp filter knows, bubblewrap installed
 * and able to make the namespaces. Asked once per process. A failure is one sentence; Rein then runs nothing
 * unconfined on the sandbox's behalf.
 */
export function probeSandbox(run: typeof spawnSync = spawnSync): SandboxProbe {
  if (run === spawnSync && cached) return cached
  const result = probe(run)
  if (run === spawnSync) cached = result
  return result
}

function probe(run: typeof spawnSync): SandboxProbe {
  if (process.platform !== 'linux') return { ok: false, reason: `The sandbox needs Linux (bubblewrap); this is ${process.platform}, where it is not built yet.` }
  if (!seccompArchOf(process.arch)) return { ok: false, reason: `The sandbox's seccomp filter knows x86_64 and aarch64 only, not ${process.arch}.` }
  const r = run('bwrap', ['--unshare-all', '--die-with-parent', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--', 'true'], {
    encoding: 'utf8',
    timeout: 10_000,
  })
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT') {
    return { ok: false, reason: 'The sandbox needs bubblewrap, which is not installed; install it (apt-get install bubblewrap, dnf install bubblewrap) and start Rein again.' }
  }
  if (r.status === 0) return { ok: true }
  const detail = String(r.stderr ?? r.error?.message ?? '').trim().split('\n')[0] ?? ''
  if (/namespace|uid map|setting up uid|Operation not permitted|Permission denied/i.test(detail)) {
    return {
      ok: false,
      reason: `bubblewrap may not create user namespaces here (${detail}); enable them (sysctl kernel.unprivileged_userns_clone=1, or the AppArmor profile for bwrap) or run without --sandbox.`,
    }
  }
  return { ok: false, reason: `bubblewrap failed its start-up check (${detail || `exit ${r.status}`}), so the sandbox cannot run.` }
}
