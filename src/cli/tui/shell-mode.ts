import type { InputBlock } from '../../llm/messages.js'
import type { SessionEvent } from '../../session/events.js'
import { describeResult, plainLine } from '../../frontend/render/index.js'
import { isShellSource } from '../../frontend/shell-command.js'
import { bashTool } from '../../tools/bash.js'
import type { ToolCard } from './transcript.js'

/** The card's name for a command the user ran with `!` (its subject is the command). */
export const SHELL_CARD_NAME = '!'

/**
 * The card a `!cmd` shows, folded from its `inbox/queued` (the output joins the log the moment the command ends, and
 * reaches the model with the next request): the command, its exit code, the output tail as a bash card shows it.
 * Undefined for any other input.
 */
export function shellCardOf(event: SessionEvent<'inbox/queued'>): ToolCard | undefined {
  const source = event.data.source
  if (event.data.verb !== 'inject' || !isShellSource(source)) return undefined
  const content = withoutCommandLine(event.data.content)
  const details = describeResult(bashTool, { content, isError: source.exitCode !== 0, meta: { exitCode: source.exitCode } })
  return {
    callId: event.data.id,
    name: SHELL_CARD_NAME,
    target: plainLine(source.command, 80),
    status: source.exitCode === 0 ? 'ok' : 'error',
    startedAt: event.time,
    ...details,
    // A failing command's output is what the user wants to read, not hidden behind its first line.
    error: undefined,
    summary: `exit code ${source.exitCode}`,
  }
}

/** Whether a `context/message` is a `!cmd`'s output, already shown by its card when it was queued. */
export function isShellOutput(event: SessionEvent<'context/message'>): boolean {
  return isShellSource(event.data.source)
}

/** The `$ command` line is the card's title; the card shows what follows it. */
function withoutCommandLine(content: readonly InputBlock[]): InputBlock[] {
  return content.map((b, i) => (i === 0 && b.type === 'text' ? { ...b, text: b.text.slice(b.text.indexOf('\n') + 1) } : b))
}

/** The editor's placeholder and border while the prompt starts with `!`. */
export const SHELL_HINT = 'shell: runs in the workspace; the output joins the conversation'

/** A `!cmd` card's whole output (after the `$ command` line), read back from the log for the expand key. */
export function shellOutputText(events: readonly SessionEvent[], id: string): string | undefined {
  const queued = events.findLast((e): e is SessionEvent<'inbox/queued'> => e.type === 'inbox/queued' && e.data.id === id)
  if (!queued || !isShellSource(queued.data.source)) return undefined
  return withoutCommandLine(queued.data.content)
    .map((b) => (b.type === 'text' ? b.text : ''))
    .join('\n')
}
