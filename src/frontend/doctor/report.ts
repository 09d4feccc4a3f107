import { readFileSync } from 'node:fs'
import { credentialsPath, missingKeyMessage, resolveApiKey } from '../../llm/credentials.js'
import { DEFAULT_BASE_URL } from '../../llm/create.js'
import { resolveSessionSandbox } from '../../runtime/sandbox.js'
import { loadSettings } from '../../config/settings.js'
import { plainText } from '../render/plain.js'
import { REAL_PROBES, type DoctorProbes } from './probes.js'
import { mcpChecks, settingsChecks, trustCheck } from './settings-checks.js'

/** `ok`: works; `warn`: Rein runs, with less (no checkpoints without git, asking without a sandbox); `fail`: it cannot. */
export type CheckLevel = 'ok' | 'warn' | 'fail'

/** One line of the report: what was checked, its level, and one sentence. Never holds a secret. */
export interface DoctorCheck {
  name: string
  level: CheckLevel
  text: string
}

export interface DoctorOptions {
  cwd: string
  home: string
  env: NodeJS.ProcessEnv
  probes?: Partial<DoctorProbes>
  /** How long the endpoint may take to answer, in milliseconds; default 3 s. */
  timeoutMs?: number
}

function reinVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version
  } catch {
    // Outside the package layout (bundled): the line still says which Node runs it.
    return 'unknown'
  }
}

/** The key: where it comes from, never its value. */
function keyCheck(env: NodeJS.ProcessEnv, home: string): DoctorCheck {
  if (!resolveApiKey(env, home)) return { name: 'key', level: 'fail', text: missingKeyMessage(home) }
  const where = env.DEEPSEEK_API_KEY?.trim() ? 'DEEPSEEK_API_KEY' : credentialsPath(home)
  return { name: 'key', level: 'ok', text: `A DeepSeek API key is configured (from ${where}).` }
}

async function endpointCheck(env: NodeJS.ProcessEnv, probes: DoctorProbes, timeoutMs: number): Promise<DoctorCheck> {
  const base = env.DEEPSEEK_BASE_URL?.trim() || DEFAULT_BASE_URL
  let url: URL
  try {
    url = new URL(base)
  } catch {
    return { name: 'endpoint', level: 'fail', text: `DEEPSEEK_BASE_URL is not a URL (${base.slice(0, 80)}); set it to e.g. ${DEFAULT_BASE_URL}.` }
  }
  const shown = `${url.origin}${url.pathname === '/' ? '' : url.pathname}`
  const reached = await probes.reach(url.href, timeoutMs)
  if ('error' in reached) return { name: 'endpoint', level: 'fail', text: `Cannot reach ${shown}: ${reached.error}; check the network and DEEPSEEK_BASE_URL.` }
  return { name: 'endpoint', level: 'ok', text: `${shown} answers (HTTP ${reached.status}).` }
}

/** A program Rein uses when it is there: its version, or what is missing without it. */
function programCheck(probes: DoctorProbes, env: NodeJS.ProcessEnv, name: string, args: string[], without: string, missing: CheckLevel = 'warn'): DoctorCheck {
  const found = probes.program(name, args, env)
  if (!found.found) return { name, level: missing, text: `${name} is not on PATH; ${without}.` }
  if (!found.ok) return { name, level: 'warn', text: `${name} is on PATH but \`${name} ${args.join(' ')}\` failed (${found.firstLine.slice(0, 120)}); ${without}.` }
  return { name, level: 'ok', text: found.firstLine.slice(0, 120) }
}

function sandboxCheck(options: DoctorOptions, probes: DoctorProbes, settingsReadable: boolean): DoctorCheck {
  const probe = probes.sandbox(options.env)
  let on: boolean | undefined
  if (settingsReadable) {
    try {
      on = resolveSessionSandbox({ cwd: options.cwd, home: options.home, settings: loadSettings(options.cwd, options.home) }).policy.enabled
    } catch {
      // A sandbox block the settings line already reported as malformed: the probe alone still says what this machine can do.
      on = undefined
    }
  }
  const policy = on === undefined ? '' : on ? 'The sandbox is on in settings; ' : 'The sandbox is off in settings; '
  if (probe.ok) return { name: 'bubblewrap', level: 'ok', text: `${policy}bubblewrap works here (\`rein sandbox\` shows the policy).` }
  return { name: 'bubblewrap', level: 'warn', text: `${policy}${probe.reason}${on ? ' Until then shell commands ask for permission.' : ''}` }
}

function nodeCheck(): DoctorCheck {
  const major = Number(/^v(\d+)/.exec(process.version)?.[1] ?? 0)
  const line = `Rein ${reinVersion()} on Node.js ${process.version}`
  return major >= 20 ? { name: 'versions', level: 'ok', text: `${line}.` } : { name: 'versions', level: 'fail', text: `${line}; Rein needs Node.js 20 or later.` }
}

/**
 * What `rein doctor` and `/doctor` report, one line per check: the key (never its value), the endpoint, the programs
 * Rein uses (git, rg, tmux, bubblewrap through `rein sandbox`'s probe), the versions, each settings file as the loader
 * reads it, workspace trust and the MCP servers configured. Starts nothing but the probes.
 */
export async function doctorReport(options: DoctorOptions): Promise<DoctorCheck[]> {
  const probes: DoctorProbes = { ...REAL_PROBES, ...options.probes }
  const { cwd, home, env } = options
  const settings = settingsChecks(cwd, home)
  const trust = trustCheck(cwd, home)
  const checks: DoctorCheck[] = [
    keyCheck(env, home),
    await endpointCheck(env, probes, options.timeoutMs ?? 3_000),
    nodeCheck(),
    programCheck(probes, env, 'git', ['--version'], 'checkpoints, /rewind of files, /review and the git context need it'),
    programCheck(probes, env, 'rg', ['--version'], 'the grep tool uses its slower built-in search instead'),
    programCheck(probes, env, 'tmux', ['-V'], 'Rein runs without it (the terminal UI\'s end-to-end tests drive it)', 'ok'),
    sandboxCheck(options, probes, settings.readable),
    ...settings.checks,
    trust.check,
  ]
  if (settings.readable) checks.push(...mcpChecks(cwd, home, env, trust.trusted))
  else checks.push({ name: 'mcp', level: 'warn', text: 'MCP servers were not checked: a settings file cannot be read.' })
  return checks
}

/** The report as a person reads it: `ok`, `warn` or `fail`, then the sentence. */
export function doctorText(checks: readonly DoctorCheck[]): string {
  const counts = (level: CheckLevel) => checks.filter((c) => c.level === level).length
  // Paths and server names come from files a repository ships: no escape sequence in one reaches a screen.
  const lines = checks.map((c) => plainText(`${c.level.padEnd(4)}  ${c.name.padEnd(10)}  ${c.text}`))
  const summary = counts('fail') ? `${counts('fail')} failed, ${counts('warn')} warned.` : counts('warn') ? `No failures; ${counts('warn')} warned.` : 'Everything checked is fine.'
  return [...lines, '', summary].join('\n')
}

/** 1 when any check failed, else 0: `rein doctor`'s exit code. */
export function doctorExitCode(checks: readonly DoctorCheck[]): number {
  return checks.some((c) => c.level === 'fail') ? 1 : 0
}
