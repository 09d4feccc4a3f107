import { workspaceSettingsGrants } from '../config/trust-report.js'
import { hookGrants } from '../hooks/catalog.js'
import { mcpFileGrants } from '../mcp/load.js'
import { promptFileGrants } from '../prompt-files/trust-report.js'
import { pluginGrants } from '../plugins/trust-report.js'
import type { Grant, GrantReport, WorkspacePlaces } from '../trust/grant.js'
import * as trust from '../trust/workspace.js'

/**
 * Everything the workspace defines that needs trust, as each loader reports it, in a fixed order (the hash covers the
 * order): the `.rein` settings files, the project hook files (`.claude`, `.codex`, `.rein` at the project root),
 * `.mcp.json`, then the workspace's custom commands and skills, then the plugins only its settings enable.
 */
export const workspaceGrants: GrantReport = (places: WorkspacePlaces): Grant[] => [
  ...workspaceSettingsGrants(places),
  ...hookGrants(places),
  ...mcpFileGrants(places),
  ...promptFileGrants(places),
  ...pluginGrants(places),
]

type Without<T> = Omit<T, 'report'>

/** The trust decision for a workspace (`src/trust/workspace.ts`), over what its loaders report. */
export function workspaceTrust(options: Without<trust.TrustOptions>): trust.WorkspaceTrust {
  return trust.workspaceTrust({ ...options, report: workspaceGrants })
}

/** Records trust in the workspace: what the person was shown (`shown`), else what its loaders report now. */
export function trustWorkspace(options: Without<Parameters<typeof trust.trustWorkspace>[0]>): trust.WorkspaceTrust {
  return trust.trustWorkspace({ ...options, report: workspaceGrants })
}

/** Runs the user's own change and keeps a trusted workspace trusted (`keepingTrust`). */
export function keepingTrust(options: Without<Parameters<typeof trust.keepingTrust>[0]>, change: () => void): void {
  trust.keepingTrust({ ...options, report: workspaceGrants }, change)
}
