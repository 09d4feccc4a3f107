import type { z } from 'zod'
import type { InputBlock } from '../llm/messages.js'
import type { EventDataMap, JsonValue } from '../session/events.js'

/** How front ends (ACP, the terminal UI) group a tool. */
export type ToolKind = 'read' | 'edit' | 'execute' | 'search' | 'fetch' | 'think' | 'other'

/**
 * How the permission policy treats a tool by default. `read`: never changes anything (free in every mode). `edit`:
 * writes files. `exec`: runs commands. `fetch`: reaches the network. `free`: only touches state the agent itself
 * owns (killing its own jobs). `other`: tools Rein cannot vouch for (MCP tools without a read-only hint).
 */
export type ToolCategory = 'read' | 'edit' | 'exec' | 'fetch' | 'free' | 'other'

/**
 * The names other harnesses give a tool. Hook payloads present the tool by `claudeCode`, and permission rules are
 * written with it (`Bash(npm test)`), so configurations written for Claude Code work unchanged. `codex` is the
 * Codex tool that does the same job, when there is one: a matcher in a Codex-format hook file matches it too.
 */
export interface PeerNames {
  claudeCode: string
  codex?: string
}

/**
 * The argument that names what a call touches, read by the permission policy and the context producers. `file` is
 * the path of one file; `path` a file or directory, the working directory when the argument is left out; `command`
 * a shell command; `url` an address to fetch.
 */
export interface CallTarget {
  kind: 'file' | 'path' | 'command' | 'url'
  argument: string
}

/** What the rest of Rein may know about a tool without running it; each tool declares these in its own file. */
export interface ToolFacts {
  /** Cannot change the working tree or the world; read-only tools may run concurrently, results still in model order. */
  readOnly: boolean
  category: ToolCategory
  /** Absent: the tool is presented and matched by its own name everywhere (MCP tools: `mcp__server__tool`). */
  peerNames?: PeerNames
  target?: CallTarget
}

/**
 * A call's arguments as display code receives them: parsed from what the model wrote but not validated, so any field
 * may be missing or of another type. Display functions must not throw on them.
 */
export type ShownArgs = Readonly<Record<string, unknown>>

/** A finished call's result as display code receives it. */
export interface ShownResult {
  content: readonly InputBlock[]
  isError: boolean
  meta?: JsonValue
}

/** A change a call would make to one file, read before it runs so that a permission question can show its diff. */
export interface ProposedChange {
  /** Absolute path of the file. */
  path: string
  /** The file's text now; null when the file does not exist yet. */
  before: string | null
  after: string
}

/**
 * How every front end (terminal UI, ACP, the web page, the printed log) presents this tool's calls
 * (docs/tool-display.md). The front end strips control characters and shortens what these return, so they return
 * plain words. A tool without a display is shown by its name and its first string argument.
 */
export interface ToolDisplay {
  /**
   * What the call acts on, from its arguments: the path, the command, the pattern. Undefined when they name nothing.
   * `cwd` shortens paths inside it. Cards show it after the tool's name (`read src/a.ts`).
   */
  subject(args: ShownArgs, cwd: string): string | undefined
  /**
   * The words before the subject in the call's title (`Read` makes `Read src/a.ts`), and the title alone when there
   * is no subject. Absent: the title is the subject itself (a command).
   */
  verb?: string
  /** One line about the result (`42 lines`, `exit code 1`); absent or undefined: the front end's generic summary. */
  summary?(result: ShownResult): string | undefined
  /** The unified diff of the change the call made, from its result. */
  diff?(result: ShownResult): string | undefined
  /** The change the call would make, read from the workspace before it runs; undefined when it cannot be known. */
  proposed?(args: ShownArgs, cwd: string): Promise<ProposedChange | undefined>
  /** `tail`: the output is a running log whose last lines are worth showing (commands). */
  output?: 'tail'
}

/** A tool's facts alone (plain data, safe to send to a client), or undefined for a name no tool has. */
export function toolFacts(tool: ToolFacts | undefined): ToolFacts | undefined {
  if (!tool) return undefined
  return {
    readOnly: tool.readOnly,
    category: tool.category,
    ...(tool.peerNames ? { peerNames: tool.peerNames } : {}),
    ...(tool.target ? { target: tool.target } : {}),
  }
}

/** The name hook payloads and permission rules use for a call: the Claude Code name, else the tool's own. */
export function peerName(name: string, facts: ToolFacts | undefined): string {
  return facts?.peerNames?.claudeCode ?? name
}

/** What one tool call produced. `content` reaches the model; `meta` stays in the log for UIs (diffs, exit codes). */
export interface ToolOutput {
  content: InputBlock[]
  isError?: boolean
  meta?: JsonValue
}

/** A result the model reads as a failure it can act on. */
export function errorOutput(text: string): ToolOutput {
  return { content: [{ type: 'text', text }], isError: true }
}

/** What a tool may touch while it runs. Created by the agent per call; `state` lives as long as the agent. */
export interface ToolContext {
  /** The session's working directory: the workspace boundary. */
  cwd: string
  callId: string
  /** Aborted when the turn is cancelled; a tool stops its work and kills what it started. */
  signal: AbortSignal
  /** Tool-private state shared by the calls of one agent (file versions read, background jobs). */
  state: ToolState
  /** Records a non-surface event before the call's result (e.g. `todo/write`). */
  record<T extends 'todo/write'>(type: T, data: EventDataMap[T]): void
  /** Streams partial output to live listeners (bash output tails); never logged. */
  progress?(text: string): void
}

/** A file as a tool last saw it, keyed by absolute path: the guard for read-before-write. */
export interface FileVersion {
  mtimeMs: number
  size: number
  sha256: string
}

export interface ToolState {
  files: Map<string, FileVersion>
  /** Directory for output too large to hand the model whole. */
  spillDir: string
  /** Other tool-owned state (the job table of background commands). */
  extra: Map<string, unknown>
  /** Names of environment variables never passed to child processes. */
  secretEnv: Set<string>
  /** Names that look like secrets but that commands receive all the same (settings `passEnv`). */
  passEnv?: Set<string>
}

/**
 * A tool the model can call. A tool file reads top to bottom as: schema, description, run. `run` returns errors
 * the model can act on as `isError` results; it throws only on a bug.
 */
export interface Tool<A = unknown> extends ToolFacts {
  name: string
  description: string
  schema: z.ZodType<A>
  kind: ToolKind
  /**
   * The JSON Schema the model is shown, when the tool brings its own (MCP tools carry their server's `inputSchema`
   * verbatim). When absent, the schema sent to the model is derived from `schema`.
   */
  parameters?: Record<string, unknown>
  display?: ToolDisplay
  run(args: A, ctx: ToolContext): Promise<ToolOutput>
}

// Tools are stored in one registry whose argument types differ per tool; the agent validates with each tool's own
// schema before calling run, so the erased type is safe.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = Tool<any>
