import { spawnSync, type SpawnSyncOptions } from 'node:child_process'
import { probeSandbox, type SandboxProbe } from '../../sandbox/probe.js'

/** What a program on PATH answered when asked its version. */
export type ProgramProbe = { found: false } | { found: true; ok: boolean; firstLine: string }

/** What a GET of a URL came to: an HTTP status, or one phrase saying why nothing answered. */
export type ReachProbe = { status: number } | { error: string }

/**
 * The outside world `rein doctor` looks at, as functions a test can replace. Each takes the environment it should
 * use (its PATH), so a report for another environment never reads this process's.
 */
export interface DoctorProbes {
  program(command: string, args: readonly string[], env: NodeJS.ProcessEnv): ProgramProbe
  reach(url: string, timeoutMs: number): Promise<ReachProbe>
  sandbox(env: NodeJS.ProcessEnv): SandboxProbe
}

function program(command: string, args: readonly string[], env: NodeJS.ProcessEnv): ProgramProbe {
  const r = spawnSync(command, args, { env, encoding: 'utf8', timeout: 5_000, stdio: ['ignore', 'pipe', 'pipe'] })
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT') return { found: false }
  const firstLine = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim().split('\n')[0]?.trim() ?? ''
  return { found: true, ok: r.status === 0, firstLine: firstLine || (r.error?.message ?? `exit ${r.status}`) }
}

/** The reason a connection failed, as a phrase: the system's code where it gives one (undici hides it in `cause`). */
function failure(error: unknown, timeoutMs: number): string {
  const name = (error as { name?: string }).name
  if (name === 'TimeoutError' || name === 'AbortError') return `nothing answered within ${timeoutMs / 1000} s`
  const cause = (error as { cause?: { code?: string; message?: string } }).cause
  const code = cause?.code ?? (error as NodeJS.ErrnoException).code
  if (code === 'ECONNREFUSED') return 'the connection was refused'
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'its host name does not resolve (offline, or a typo in the URL)'
  if (code === 'ECONNRESET') return 'the connection was reset'
  if (code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') return `nothing answered within ${timeoutMs / 1000} s`
  if (code?.startsWith('CERT_') || code?.includes('SSL') || code?.includes('TLS')) return `its TLS certificate was refused (${code})`
  // fetch refuses the ports browsers block (9, 25, 6000…) before connecting.
  if (cause?.message === 'bad port') return 'fetch refuses to connect to that port (one browsers block); use another'
  return cause?.message ?? (error instanceof Error ? error.message : String(error))
}

async function reach(url: string, timeoutMs: number): Promise<ReachProbe> {
  try {
    // Any HTTP answer shows the endpoint is reachable; the body is not read and no key is sent.
    const response = await fetch(url, { method: 'GET', redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) })
    await response.body?.cancel()
    return { status: response.status }
  } catch (error) {
    return { error: failure(error, timeoutMs) }
  }
}

function sandbox(env: NodeJS.ProcessEnv): SandboxProbe {
  if (env === process.env) return probeSandbox()
  const run = ((command: string, args: readonly string[], options: SpawnSyncOptions) => spawnSync(command, args, { ...options, env })) as typeof spawnSync
  return probeSandbox(run)
}

/** The real probes: programs on the given PATH, fetch, and `rein sandbox`'s bubblewrap check. */
export const REAL_PROBES: DoctorProbes = { program, reach, sandbox }
