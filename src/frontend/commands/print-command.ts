import { findCommand, parseSlash } from './catalog.js'
import { runCatalogCommand } from './one-shot.js'
import type { CommandAgent, CommandHost } from './types.js'

/**
 * The built-in a `rein -p` prompt names (`/compact`, `/model x`), when the catalog offers it on `print` in `cwd`;
 * else undefined (a custom command of `cwd` that takes a yielding built-in's place is a prompt).
 */
export function printBuiltin(prompt: string, cwd: string): { name: string; arg: string } | undefined {
  const line = parseSlash(prompt)
  return line && findCommand(line.name, 'print', cwd) ? line : undefined
}

/**
 * Runs a built-in in one-shot mode instead of sending its text to the model (issue 33, item 12): each reply goes to
 * standard output (a JSON line `{"type":"command",…}` unless the format is text); a refusal is one sentence on
 * standard error and exit code 1. Returns the exit code, or `{prompted}` when the command sent a prompt (`/init`,
 * `/review`): its replies went to standard error, and the caller runs and prints that turn as for any prompt.
 */
export async function runPrintBuiltin(
  agent: CommandAgent,
  command: { name: string; arg: string },
  io: { out: NodeJS.WritableStream; err: NodeJS.WritableStream; text: boolean; home?: string },
): Promise<number | { prompted: string }> {
  let prompted: string | undefined
  const host: CommandHost = { sendPrompt: (text, source) => (prompted = agent.followUp(text, source)) }
  const outcome = await runCatalogCommand(agent, 'print', command.name, command.arg, io.home, host)
  if ('refused' in outcome) {
    io.err.write(`rein: ${outcome.refused}\n`)
    return 1
  }
  if (prompted !== undefined) {
    for (const reply of outcome.replies) io.err.write(`rein: ${reply.text}\n`)
    return { prompted }
  }
  if (io.text) for (const reply of outcome.replies) io.out.write(reply.text.endsWith('\n') ? reply.text : `${reply.text}\n`)
  else io.out.write(`${JSON.stringify({ type: 'command', name: outcome.name, session_id: agent.session.id, replies: outcome.replies })}\n`)
  return 0
}
