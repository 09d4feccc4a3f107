import type { Attachment } from './attachments.js'
import type { NotifyChannel } from './notify.js'
import type { PromptHistory } from './history.js'
import type { ModelFactsLookup } from './usage-ledger.js'

/** One row of the `/resume` picker. */
export interface SessionChoice {
  id: string
  title?: string
  /** ms since the epoch. */
  updatedAt: number
  bytes: number
  turns: number
  /** For a fork: the title (or short id) of the session it came from. */
  forkOf?: string
}

/**
 * What the terminal UI needs from outside the agent: the model catalog, settings, the session listing and the
 * workspace's files. index.ts wires the real modules; component tests pass plain functions.
 */
export interface TuiServices {
  facts: ModelFactsLookup
  /** "Allow always": adds the rule to `<cwd>/.rein/settings.local.json`. */
  addLocalAllowRule(cwd: string, rule: string): void
  listSessions(cwd: string): Promise<SessionChoice[]>
  /** Workspace files for `@path` completion, relative to `cwd`, ignored files left out. */
  workspaceFiles(cwd: string): Promise<string[]>
  permissionRules(cwd: string): { allow: string[]; ask: string[]; deny: string[] }
  /** `/sandbox`: the resolved sandbox policy and whether bubblewrap works, as `rein sandbox` prints it. */
  sandboxReport?(cwd: string): string
  /** Reads a file a prompt's `@path` attaches, with the read tool's checks; absent where prompts attach nothing. */
  attach?(cwd: string, path: string): Attachment
  /** How a long turn's end or a waiting question gets attention (settings `tui.notifications`; notify.ts). */
  notifications?: NotifyChannel
  /** A stored session's readable transcript (`/subagents` opens a child's); absent where no store is at hand. */
  transcript?(id: string): Promise<string>
  /** The workspace's earlier prompts for Up/Down and Ctrl+R (history.ts); absent: this screen's prompts only. */
  promptHistory?: PromptHistory
}

/** How the UI asks to leave or to replace its agent (a new, resumed or forked session). */
export type TuiExit =
  | { kind: 'quit' }
  | {
      kind: 'switch'
      resume?: string
      fork?: { id: string; seq?: number }
      /** Text to put in the editor of the new session (the prompt a fork starts from). */
      prefill?: string
    }
