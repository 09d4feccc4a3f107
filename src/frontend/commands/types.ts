import type { AgentApi } from '../../agent/types.js'
import type { SessionEvent, Source } from '../../session/events.js'
import type { ToolState } from '../../tools/tool.js'

/** The front ends a built-in command may be offered on. `print` is `rein -p "/name"` (one-shot mode). */
export const SURFACES = ['tui', 'acp', 'rpc', 'web', 'print'] as const
export type Surface = (typeof SURFACES)[number]

/** The agent as a command sees it: what the terminal UI, ACP, RPC, the web and print mode all have. */
export type CommandAgent = Pick<
  AgentApi,
  'cwd' | 'config' | 'permissionMode' | 'busy' | 'setModel' | 'setPermissionMode' | 'runCommand' | 'compact' | 'followUp'
> & {
  readonly session: { readonly id: string; readonly events: readonly SessionEvent[] }
  /** The tools' state (the background job table); the agent `openAgent` makes has it, a stand-in may not. */
  readonly toolState?: ToolState
}

/** One row a picker offers. */
export interface CommandChoiceRow {
  value: string
  label: string
  detail?: string
}

/** Where a command may move the surface: quit, a new session, another session (resumed or forked), optionally with an editor prefill. */
export type SessionSwitch =
  | { kind: 'quit' }
  | { kind: 'switch'; resume?: string; fork?: { id: string; seq: number }; prefill?: string }

/** A session of this directory, as `/resume` lists it. */
export interface ListedSession {
  id: string
  title?: string
  updatedAt: number
  turns: number
  bytes: number
  /** For a fork: the title (or short id) of the session it was forked from. */
  forkOf?: string
}

/**
 * What a command may ask of the surface beyond replying. Every field is optional: a surface gives what it can, and a
 * command offered on a surface may rely only on what that surface gives (the catalog's `surfaces` says where).
 */
export interface CommandHost {
  /** Offers choices; `onPick` runs with the chosen value (never when dismissed). */
  pick?(title: string, choices: CommandChoiceRow[], onPick: (value: string) => void): void
  /** Leaves this session: quits, or opens another one in its place. */
  switchSession?(to: SessionSwitch): void
  /** The surface's own lines for `/help` (the terminal UI's keys). */
  helpLines?(): string[]
  /** The surface draws `compaction/end` from the event stream, so `/compact` need not say how it went. */
  drawsCompaction?: boolean
  /** The agent's settings changed (model, effort, mode): the surface re-reads them. */
  settingsChanged?(): void
  listSessions?(cwd: string): Promise<ListedSession[]>
  permissionRules?(cwd: string): { allow: string[]; ask: string[]; deny: string[] }
  sandboxReport?(cwd: string): string
  transcript?(id: string): Promise<string>
  /** The surface's own views of the session: usage and cost by turn, the next request by producer, hooks, the conversation as Markdown. */
  report?(kind: 'cost' | 'context' | 'hooks' | 'markdown'): string
  /** Turns the editor's vim keys on or off; returns whether they are now on (the terminal UI's `/vim`). */
  toggleVim?(): boolean
  /** The context window of a model, in tokens, as settings and the catalog give it. */
  contextWindow?(model: string): number
  /** The surface's colour theme (`/theme`): the one in use, and switching it. */
  theme?(): { name: string; setting: string }
  setTheme?(setting: string): void
  /**
   * Sends `text` as the user's prompt, its own turn (`/init`, `/review`), where the surface answers the command with
   * that turn (ACP's prompt request, `rein -p`); returns the message id. Without it the prompt is the agent's follow-up.
   */
  sendPrompt?(text: string, source: Source): string
}

/** How a reply is shown: a notice line (`say`), or a titled block (`show`). */
export interface ReplyOptions {
  title?: string
  level?: 'info' | 'warning' | 'error'
}

/** What a command runs against: the agent, a reply sink, and what the surface offers besides. */
export interface CommandContext {
  surface: Surface
  agent: CommandAgent
  /** The session's events so far (the terminal UI's view may run ahead of `agent.session.events`). */
  events(): readonly SessionEvent[]
  reply(text: string, options?: ReplyOptions): void
  host: CommandHost
  /** `$REIN_HOME`, for commands that read settings. */
  home: string
}

/** A command's argument, for completion and `/help`. */
export interface CommandArgument {
  /** As `/help` shows it: `[id]`, `[off|low|high|max]`. */
  hint: string
  /** The values completion may offer, when the argument is one of a fixed set. */
  choices?(ctx: { cwd: string }): readonly string[]
  /**
   * Run with no argument where the surface can pick (the terminal UI), the command offers these in a picker: `true`
   * for `choices`, or its own list (values that completion and other surfaces' hints need not list).
   */
  picks?: true | ((ctx: { cwd: string }) => readonly string[])
  /** A picker row's detail for one choice (a model's window and price). */
  describe?(value: string, ctx: { cwd: string }): string | undefined
  /** The command whose picker opens after a pick (`/model`, then `/effort`). */
  then?: string
}

/** One built-in command. */
export interface BuiltinCommand {
  name: string
  aliases?: readonly string[]
  argument?: CommandArgument
  /** One line, sentence case, the same on every surface. */
  help: string
  surfaces: readonly Surface[]
  /**
   * A custom command of the same name takes this one's place in a directory where one is offered (a `review.md` the
   * user or the workspace wrote): the built-in is then neither listed nor run there. Only for built-ins that just send
   * a prompt (`/init`, `/review`), so a command file never changes what a built-in that acts (`/model`) does.
   */
  yields?: boolean
  run(ctx: CommandContext, arg: string): Promise<void> | void
}
