import type { AgentApi } from '../agent/types.js'
import type { Source } from '../session/events.js'
import { USER_SHELL_COMMAND } from '../runtime/user-shell.js'

/**
 * `!cmd`: a command the user runs themselves (Claude Code's bash mode). It runs through the agent's bash runner and
 * sandbox without a permission question (the user typed it), and what it printed joins the conversation as the
 * user's own content: injected context, so it reaches the model on the next request without opening a turn.
 *
 * What the model reads is plain text framed by this producer, no harness tags (DESIGN: injected content projects
 * verbatim): `$ <command>` on the first line, then the output exactly as a bash tool result gives it (its tail, a
 * note when the middle was cut, `[exit code: N]` last).
 */

/** How the injected content is marked in the log: a person's input (`kind: user`) that came through `!`. */
export interface ShellSource extends Source {
  kind: 'user'
  via: 'shell'
  command: string
  exitCode: number
}

export type ShellOutcome =
  | { kind: 'ran'; command: string; exitCode: number; text: string; id: string; stopped: string | null }
  | { kind: 'refused'; message: string }

/** The command of a `!` prompt, or undefined when the prompt is not one (a lone `!` is a command too: empty). */
export function shellCommandOf(prompt: string): string | undefined {
  return prompt.startsWith('!') ? prompt.slice(1).trim() : undefined
}

/** The text the model reads for a command the user ran. */
export function shellContextText(command: string, output: string): string {
  return `$ ${command}\n${output}`
}

export function isShellSource(source: Source): source is ShellSource {
  return source.kind === 'user' && source.via === 'shell' && typeof source.command === 'string'
}

/**
 * Runs `command` for the user and logs its output as their content. Refused in one sentence while a turn (or a
 * command) runs: the output would land in the middle of the model's step. Cancelling the agent stops it.
 */
export async function runShellCommand(agent: AgentApi, command: string): Promise<ShellOutcome> {
  if (!command) return { kind: 'refused', message: 'Type a command after !, for example !git status.' }
  if (agent.busy) return { kind: 'refused', message: `Cannot run !${command} while the agent works; wait for it to finish or press Esc, then run it again.` }
  let result
  try {
    result = await agent.runCommand(USER_SHELL_COMMAND, { text: command })
  } catch (error) {
    return { kind: 'refused', message: error instanceof Error ? error.message : String(error) }
  }
  const data = result.data && typeof result.data === 'object' && !Array.isArray(result.data) ? result.data : undefined
  if (result.outcome !== 'ran' || !data) return { kind: 'refused', message: result.message }
  const exitCode = typeof data.exitCode === 'number' ? data.exitCode : -1
  const output = typeof data.output === 'string' ? data.output : ''
  const stopped = typeof data.stopped === 'string' ? data.stopped : null
  const source: ShellSource = { kind: 'user', via: 'shell', command, exitCode }
  const text = shellContextText(command, output)
  const id = agent.inject(text, source)
  return { kind: 'ran', command, exitCode, text, id, stopped }
}
