import { reinHome } from '../../store/home.js'
import { findCommand } from './catalog.js'
import { runCollecting, unknownCommand, type CommandReply } from './run.js'
import type { CommandAgent, CommandHost, Surface } from './types.js'

/** What a request/response surface answers for a command: its replies, or the sentence that refused it. */
export type OneShotOutcome = { name: string; replies: CommandReply[] } | { refused: string }

/**
 * Runs a catalog command for a surface that answers each request once (RPC, the web, print mode): no picker, no
 * session switch. A name the surface does not offer, and a command that answered with a warning or an error (a bad
 * argument, a retired model, a turn running), are refused with that one sentence, so the caller can fail the request.
 */
export async function runCatalogCommand(agent: CommandAgent, surface: Surface, name: string, args: string, home?: string, host: CommandHost = {}): Promise<OneShotOutcome> {
  const command = findCommand(name, surface)
  if (!command) return { refused: unknownCommand(name, surface) }
  const { replies } = await runCollecting({ surface, agent, events: () => agent.session.events, host, home: home ?? reinHome() }, command.name, args)
  const problems = replies.filter((r) => r.level === 'warning' || r.level === 'error')
  if (problems.length) return { refused: problems.map((r) => r.text).join(' ') }
  return { name: command.name, replies }
}
