import type { AvailableCommand } from '@agentclientprotocol/sdk'
import { isBuiltinCommand } from '../slash/builtins.js'
import { commandsFor, findCommand } from '../frontend/commands/catalog.js'
import { runCollecting } from '../frontend/commands/run.js'
import type { CommandHost } from '../frontend/commands/types.js'
import type { InputBlock } from '../llm/messages.js'
import { offeredCommands } from '../prompt-files/commands/listing.js'
import { reinHome } from '../store/home.js'
import type { AcpAgent } from './agent-port.js'

/**
 * The slash commands an editor offers: the catalog's commands for ACP (src/frontend/commands), then the workspace's
 * and user's custom commands. The server answers a built-in itself (it never reaches the model); the agent expands
 * a custom one when a prompt names it, so the editor sends those as ordinary prompts.
 */
export function acpCommands(cwd: string): AvailableCommand[] {
  const builtins = commandsFor('acp', cwd).map((c) => {
    const choices = c.argument?.choices?.({ cwd })
    const hint = choices ? choices.join(' | ') : c.argument?.hint
    return { name: c.name, description: c.help, ...(hint ? { input: { hint } } : {}) }
  })
  const custom = offeredCommands(cwd, isBuiltinCommand).offered.map((c) => ({
    name: c.name,
    description: `${c.description} (${c.origin})`,
    ...(c.hint ? { input: { hint: c.hint } } : {}),
  }))
  return [...builtins, ...custom]
}

/** The command a prompt is, when it is exactly one text block `/name [argument]` naming a built-in ACP offers (in `cwd`). */
export function parseCommand(content: readonly InputBlock[], cwd?: string): { name: string; arg: string } | undefined {
  if (content.length !== 1 || content[0].type !== 'text') return undefined
  const match = /^\/([a-z][\w-]*)(?:\s+([\s\S]*))?$/.exec(content[0].text.trim())
  if (!match || !findCommand(match[1], 'acp', cwd)) return undefined
  return { name: match[1], arg: (match[2] ?? '').trim() }
}

/**
 * Runs a built-in against the agent and returns the text shown as the agent's reply. ACP gives an agent no way to
 * pick or switch the editor's session, so the host offers neither: `/rewind` lists turns and names the fork it made.
 */
export async function runCommand(agent: AcpAgent, command: { name: string; arg: string }, onPrompt?: (messageId: string) => void): Promise<string> {
  // A command that sends a prompt (`/init`, `/review`): the caller answers the editor's request when that turn ends.
  const host: CommandHost = {
    sendPrompt: (text, source) => {
      const id = agent.followUp(text, source)
      onPrompt?.(id)
      return id
    },
  }
  const { replies } = await runCollecting({ surface: 'acp', agent, events: () => agent.session.events, host, home: reinHome() }, command.name, command.arg)
  return replies.map((r) => r.text).join('\n\n')
}
