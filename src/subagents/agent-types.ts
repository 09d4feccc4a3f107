/**
 * An agent type: what a child started by the `task` tool is. Its system prompt and tool list depend only on the type
 * (and the session's working directory), so every child of one type sends the same prefix and hits DeepSeek's cache
 * from its second step (DESIGN principle 3).
 */
export interface AgentType {
  name: string
  /** The file's `name` when it is no id (`Code Reviewer`); `name` is then the file's name. */
  displayName?: string
  /** What the parent model reads in the `task` tool's list of types: when to pick this one. */
  description: string
  /** Rein tool names the type may use, or undefined for every tool the parent has. Always cut to the parent's set. */
  tools?: readonly string[]
  /** The type's own instructions, appended to the fixed subagent preamble. */
  prompt: string
  /** A model id for its requests; undefined runs on the parent's model. */
  model?: string
  /** `built-in`, or the file the type was read from. */
  source: string
  /** `bash` accepts only commands that read (see read-only-bash.ts). */
  readOnlyBash?: boolean
}

/** The tools of `explore`: reading and searching, and bash for commands that only read. */
const EXPLORE_TOOLS = ['read', 'grep', 'glob', 'ls', 'web_fetch', 'bash'] as const

export const BUILTIN_AGENTS: readonly AgentType[] = [
  {
    name: 'general',
    description: 'your tools',
    prompt: 'Do the job you are given completely, then answer with what you found or did.',
    source: 'built-in',
  },
  {
    name: 'explore',
    description: 'read-only search',
    tools: EXPLORE_TOOLS,
    prompt:
      'You only read: you cannot change files, and bash runs only commands that read (ls, cat, grep, find, git log…). Search broadly, then answer with the facts the job asks for: file paths with line numbers, short quotes, conclusions.',
    source: 'built-in',
    readOnlyBash: true,
  },
]

/**
 * The child's system prompt: a fixed preamble, the type's instructions. Static for one type in one working
 * directory, never naming the call or its job (the job is the child's first prompt).
 */
export function childSystemPrompt(type: AgentType, cwd: string): string {
  return `You are a Rein subagent of type "${type.name}": another agent gave you one job. The working directory is ${cwd}.
Work on your own with your tools; nobody can answer questions. Your final message is all the other agent sees: make it complete and self-contained, and say what you could not do.

${type.prompt}`
}
