import type { AvailableCommand } from '@agentclientprotocol/sdk'
import { PERMISSION_MODES } from '../agent/types.js'
import type { Effort } from '../llm/adapter.js'
import type { InputBlock } from '../llm/messages.js'
import type { AcpAgent } from './agent-port.js'
import { isPermissionMode } from './modes.js'
import { skillsReport } from '../skills/report.js'
import { offeredCommands } from '../slash/listing.js'
import { readSandboxReport, sandboxReportText } from '../frontend/sandbox-report.js'
import { reinHome } from '../store/home.js'

const EFFORTS: readonly Effort[] = ['off', 'low', 'high', 'max']

/**
 * The slash commands an editor offers. They change session settings, so the ACP server answers them itself: they
 * run no turn and never reach the model. Other commands of the terminal UI (`/compact`, `/cost`…) need its screens
 * and are not offered; a prompt naming one goes to the model as typed.
 */
export const ACP_COMMANDS: AvailableCommand[] = [
  { name: 'model', description: 'Show or switch the model', input: { hint: 'model id' } },
  { name: 'effort', description: 'Show or set how hard the model thinks', input: { hint: EFFORTS.join(' | ') } },
  { name: 'permissions', description: 'Show or set the permission mode', input: { hint: PERMISSION_MODES.join(' | ') } },
  { name: 'skills', description: 'List the skills the model can load, and the ones that could not be loaded' },
  { name: 'sandbox', description: 'Show the sandbox policy and whether bubblewrap works here' },
  { name: 'rewind', description: "List the turns, or go back to a turn's start: its files, its conversation or both", input: { hint: 'turn [code|conversation] | undo' } },
]

/**
 * The workspace's and user's custom commands (src/slash), offered beside the built-ins. The agent expands them
 * itself when a prompt names one, so the editor sends them as ordinary prompts.
 */
export function customAcpCommands(cwd: string): AvailableCommand[] {
  return offeredCommands(cwd).offered.map((c) => ({
    name: c.name,
    description: `${c.description} (${c.origin})`,
    ...(c.hint ? { input: { hint: c.hint } } : {}),
  }))
}

/** The command a prompt is, when it is exactly one text block `/name [argument]` naming an offered command. */
export function parseCommand(content: readonly InputBlock[]): { name: string; arg: string } | undefined {
  if (content.length !== 1 || content[0].type !== 'text') return undefined
  const match = /^\/([a-z][\w-]*)(?:\s+([\s\S]*))?$/.exec(content[0].text.trim())
  if (!match || !ACP_COMMANDS.some((c) => c.name === match[1])) return undefined
  return { name: match[1], arg: (match[2] ?? '').trim() }
}

/** Runs a command against the agent and returns the one sentence shown as the agent's reply. */
export function runCommand(agent: AcpAgent, command: { name: string; arg: string }): string {
  const { name, arg } = command
  if (name === 'skills') return skillsReport(agent.cwd)
  if (name === 'sandbox') return sandboxText(agent.cwd)
  if (name === 'model') {
    if (!arg) return `The model is ${agent.config.model}.`
    agent.setModel({ model: arg })
    return `The model is now ${arg}; it applies from the next request.`
  }
  if (name === 'effort') {
    if (!arg) return `Effort is ${agent.config.effort}.`
    if (!(EFFORTS as readonly string[]).includes(arg)) return `Effort must be one of ${EFFORTS.join(', ')}; try /effort high.`
    agent.setModel({ effort: arg as Effort })
    return `Effort is now ${arg}.`
  }
  if (!arg) return `The permission mode is ${agent.permissionMode}.`
  if (!isPermissionMode(arg)) return `The permission mode must be one of ${PERMISSION_MODES.join(', ')}; try /permissions default.`
  agent.setPermissionMode(arg)
  return `The permission mode is now ${arg}.`
}

/** `/sandbox`: what `rein sandbox` prints for the session's workspace, or the one sentence a bad settings file gives. */
function sandboxText(cwd: string): string {
  const home = reinHome()
  try {
    return sandboxReportText(readSandboxReport({ cwd, home }), home)
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}
