import type { CommandResult } from '../agent/extensions.js'
import { parseRewindSlash, rewindPlanLines, scopeRequest, turnListing } from '../checkpoints/rewind-slash.js'
import { REWIND_COMMAND, UNDO_REWIND_COMMAND, type RewindOutcome, type RewindRequest } from '../checkpoints/rewind-types.js'
import { checkpointTurns } from '../checkpoints/turns.js'
import type { AcpAgent } from './agent-port.js'

/**
 * `/rewind` from an editor (docs/acp.md): alone, the turns and what each changed; `/rewind <turn> [code|conversation]`
 * goes back to a turn's start; `/rewind undo` undoes the latest code rewind. ACP gives an agent no way to switch the
 * editor to another session, so a conversation rewind names the fork it made: the editor opens it from its session
 * list (`session/load`), and this session stays as it was. Conflicts are asked through the editor's permission
 * request, like any other question. Returns the reply shown as the agent's message.
 */
export async function runAcpRewind(agent: AcpAgent, arg: string): Promise<string> {
  if (agent.busy) return 'A turn is running; /rewind works once it has ended (cancel it first).'
  const parsed = parseRewindSlash(arg)
  switch (parsed.kind) {
    case 'error':
      return parsed.message
    case 'list': {
      const turns = checkpointTurns(agent.session.events)
      if (!turns.length) return 'There is no turn to rewind to yet.'
      return `Turns of this session, newest first (/rewind <turn> [code|conversation] goes back to one):\n\n${turnListing(turns)}`
    }
    case 'undo':
      return reply(agent, UNDO_REWIND_COMMAND, {})
    case 'turn':
      return reply(agent, REWIND_COMMAND, { turn: parsed.turn, ...(parsed.scope ? scopeRequest(parsed.scope) : {}) })
  }
}

async function reply(agent: AcpAgent, name: string, request: Partial<RewindRequest>): Promise<string> {
  let result: CommandResult
  try {
    result = await agent.runCommand(name, { args: { ...request } })
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
  const outcome = result.data as RewindOutcome | undefined
  const lines = [result.message, ...rewindPlanLines(outcome)]
  if (outcome?.fork) {
    lines.push(`To continue there, open session ${outcome.fork.id} from your editor's session list; this session stays as it was.`)
  }
  return lines.join('\n')
}
