import type { CommandChoice } from '../../frontend/commands/completion.js'
import { offeredCommands } from '../../slash/listing.js'

/** A slash command as `/help` lists it. */
export interface SlashCommand {
  name: string
  args?: string
  summary: string
}

export const SLASH_COMMANDS: readonly SlashCommand[] = [
  { name: 'help', summary: 'list commands and keys' },
  { name: 'new', summary: 'start a new session in this directory' },
  { name: 'resume', summary: "pick one of this directory's sessions to continue" },
  { name: 'fork', summary: 'branch a new session from an earlier prompt' },
  { name: 'model', args: '[id]', summary: 'show or switch the model' },
  { name: 'effort', args: '[off|low|high|max]', summary: 'show or set how hard the model thinks' },
  { name: 'permissions', args: '[mode]', summary: 'show the permission mode and rules, or set the mode' },
  { name: 'rewind', args: '[turn|undo]', summary: "go back to a turn's start: its files, its conversation or both" },
  { name: 'compact', args: '[keep=N] [focus]', summary: 'summarize all but the newest exchange (or N) to free context' },
  { name: 'cost', summary: 'usage and cost by turn' },
  { name: 'context', summary: 'what the next request contains, by producer' },
  { name: 'hooks', summary: 'hooks that ran in this session and what they decided' },
  { name: 'skills', summary: 'the skills the agent can load' },
  { name: 'sandbox', summary: 'the sandbox policy and whether bubblewrap works here' },
  { name: 'subagents', summary: "open the transcript of a subagent this session started" },
  { name: 'export', args: '[file]', summary: 'write the conversation as Markdown' },
  { name: 'quit', summary: 'leave Rein' },
]

/** The keys `/help` explains. */
export const KEY_HELP: readonly [string, string][] = [
  ['Enter', 'send; while the agent works, steer it at the next step'],
  ['Alt+Enter, Tab', 'queue a follow-up for after the turn'],
  ['Ctrl+J, Shift+Enter, \\ Enter', 'new line'],
  ['Up / Down', 'history; Up on an empty editor takes back the last queued message'],
  ['Esc', 'cancel the running turn'],
  ['Ctrl+O', 'expand the last collapsed reasoning or context'],
  ['Ctrl+C', 'clear the editor; twice to exit'],
  ['@path', 'mention a workspace file (Tab completes)'],
]

/** `/name rest` → name and argument text; undefined when the line is not a slash command. */
export function parseSlash(line: string): { name: string; arg: string } | undefined {
  const match = /^\/([a-zA-Z][\w-]*)(?:\s+([\s\S]*))?$/.exec(line.trim())
  if (!match) return undefined
  return { name: match[1].toLowerCase(), arg: (match[2] ?? '').trim() }
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const here = row[j]
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1))
      prev = here
    }
  }
  return row[b.length]
}

/** The known command closest to a mistyped one: a prefix match first, else the nearest within two edits. */
export function suggestCommand(name: string): string | undefined {
  const prefixed = SLASH_COMMANDS.find((c) => c.name.startsWith(name))
  if (prefixed) return prefixed.name
  let best: { name: string; d: number } | undefined
  for (const c of SLASH_COMMANDS) {
    const d = distance(name, c.name)
    if (d <= 2 && (!best || d < best.d)) best = { name: c.name, d }
  }
  return best?.name
}

// Custom commands (src/slash) beside the built-ins: completion offers both, and a custom name is sent as a prompt.

/** Whether `/name` is a custom command rather than a built-in. */
export function isCustomCommand(cwd: string, name: string): boolean {
  return !SLASH_COMMANDS.some((c) => c.name === name) && offeredCommands(cwd).offered.some((c) => c.name === name || c.command.name === name)
}

/** Every command the editor completes: the built-ins, then the custom commands. */
export function commandChoices(cwd: string): CommandChoice[] {
  return [...SLASH_COMMANDS.map((c) => ({ name: c.name, hint: c.args })), ...offeredCommands(cwd).offered.map((c) => ({ name: c.name, hint: c.hint }))]
}
