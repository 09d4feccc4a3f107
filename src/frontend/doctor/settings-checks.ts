import { existsSync } from 'node:fs'
import { loadSettingsReport, readSettingsFile, settingsFiles, SettingsError, type Settings } from '../../config/settings.js'
import { loadMcpConfig } from '../../mcp/load.js'
import { workspaceTrust } from '../../runtime/workspace-trust.js'
import { counted } from '../../text/count.js'
import { describeGrant } from '../../trust/workspace.js'
import type { DoctorCheck } from './report.js'

/**
 * The top-level settings keys some part of Rein reads (docs/configuration.md). A key outside this list is kept by the
 * loader (a module may own it) but nothing reads it, so the doctor names it: usually a typo or a Claude Code key.
 */
export const KNOWN_SETTINGS_KEYS: readonly string[] = [
  '$schema',
  'permissions',
  'model',
  'effort',
  'secretEnv',
  'passEnv',
  'webFetch',
  'models',
  'wire',
  'compaction',
  'hooks',
  'stopHooks',
  'mcpServers',
  'subagents',
  'checkpoints',
  'sandbox',
  'store',
  'userId',
  'sessionTitles',
]

/** Each settings file as the loader reads it: a parse or gate error fails, an unknown key warns. */
export function settingsChecks(cwd: string, home: string): { checks: DoctorCheck[]; readable: boolean } {
  const checks: DoctorCheck[] = []
  const userFile = settingsFiles(cwd, home)[0]
  const present = settingsFiles(cwd, home).filter((file) => existsSync(file))
  let readable = true
  for (const file of present) {
    let settings: Settings
    try {
      settings = readSettingsFile(file, file === userFile ? { dir: '/', base: '/' } : { dir: cwd, base: cwd })
    } catch (error) {
      readable = false
      checks.push({ name: 'settings', level: 'fail', text: error instanceof SettingsError ? error.message : `Settings file ${file} could not be read: ${(error as Error).message}.` })
      continue
    }
    const unknown = Object.keys(settings).filter((key) => !KNOWN_SETTINGS_KEYS.includes(key))
    if (unknown.length) {
      const keys = unknown.slice(0, 5).map((k) => `"${k.slice(0, 40)}"`).join(', ')
      checks.push({ name: 'settings', level: 'warn', text: `Settings file ${file} has ${unknown.length === 1 ? 'a key' : 'keys'} Rein does not read: ${keys}${unknown.length > 5 ? ` and ${unknown.length - 5} more` : ''}.` })
    }
  }
  if (readable && !checks.length) {
    checks.push({ name: 'settings', level: 'ok', text: present.length ? `${counted(present.length, 'settings file')} read without problems: ${present.join(', ')}.` : 'No settings files; Rein runs on its defaults.' })
  }
  return { checks, readable }
}

/** Whether the workspace is trusted, and what an untrusted one defines that Rein leaves inert until it is. */
export function trustCheck(cwd: string, home: string): { check: DoctorCheck; trusted: boolean } {
  const trust = workspaceTrust({ cwd, home })
  if (trust.trusted) return { trusted: true, check: { name: 'trust', level: 'ok', text: `This workspace is trusted (${counted(trust.grants.length, 'grant')}).` } }
  if (!trust.grants.length) return { trusted: false, check: { name: 'trust', level: 'ok', text: 'This workspace is not trusted, and it defines nothing that needs trust.' } }
  const shown = trust.grants.slice(0, 4).map(describeGrant)
  const more = trust.grants.length > shown.length ? ` and ${trust.grants.length - shown.length} more` : ''
  const why = trust.status === 'changed' ? 'changed since you trusted it' : 'not trusted'
  return {
    trusted: false,
    check: { name: 'trust', level: 'warn', text: `This workspace is ${why}, so Rein ignores ${shown.join('; ')}${more}; review them and run \`rein trust\`.` },
  }
}

/** The MCP servers the settings and `.mcp.json` configure; none is started. */
export function mcpChecks(cwd: string, home: string, env: NodeJS.ProcessEnv, trusted: boolean): DoctorCheck[] {
  const settings = loadSettingsReport(cwd, home, { workspaceTrusted: trusted }).settings
  const { servers, problems, untrusted } = loadMcpConfig({ cwd, settings, home, trustProject: trusted, quietUntrusted: true, env })
  const checks: DoctorCheck[] = problems.map((text) => ({ name: 'mcp', level: 'warn' as const, text }))
  if (untrusted.length) {
    checks.push({ name: 'mcp', level: 'warn', text: `${counted(untrusted.length, 'project MCP server')} will not start until trusted: ${untrusted.map((s) => s.name).join(', ')}; run \`rein mcp trust\`.` })
  }
  const names = servers.map((s) => `${s.name} (${s.type ?? (s.url ? 'http' : 'stdio')}${s.origin ? `, ${s.origin}` : ''})`)
  checks.unshift({ name: 'mcp', level: 'ok', text: servers.length ? `${counted(servers.length, 'MCP server')} configured: ${names.join(', ')}; \`rein mcp list\` starts them and lists their tools.` : 'No MCP servers are configured.' })
  return checks
}
