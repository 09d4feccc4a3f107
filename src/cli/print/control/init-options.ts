import type { AgentType } from '../../../subagents/agent-types.js'
import { agentTypesFrom } from '../claude-flags.js'
import type { InitializeRequest } from './wire.js'

/** The SDK's marker between the cacheable and the per-session part of a custom prompt; Rein has one system text. */
const DYNAMIC_BOUNDARY = '__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__'

/** Fields of `initialize` that shape how the agent opens. */
export interface InitOptions {
  /** Replaces (`replace`) or follows (`append`) the system prompt, as `--system-prompt` and `--append-system-prompt` do. */
  systemPrompt?: { replace?: string; append?: string }
  /** The SDK's `agents`: subagent types the `task` tool runs. */
  agentTypes: AgentType[]
}

/**
 * What an `initialize` asks of the session, as `openAgent` takes it, with one sentence per part Rein cannot use.
 *
 * The SDK sends `systemPrompt` as blocks for a custom prompt (`Options.systemPrompt` a string or a list) and
 * `appendSystemPrompt` for the `claude_code` preset's `append`; the preset alone sends neither. Blocks joined by
 * blank lines replace Rein's system prompt. An empty custom prompt is what the SDK sends when the program sets no
 * `systemPrompt` (Claude Code's minimal prompt for tool calling): Rein then keeps its own, which is that prompt here.
 */
export function initOptions(init: InitializeRequest): { options: InitOptions; problems: string[] } {
  const problems: string[] = []
  const blocks = (init.systemPrompt ?? []).filter((b) => b !== DYNAMIC_BOUNDARY)
  const custom = blocks.join('\n\n')
  const append = init.appendSystemPrompt
  const systemPrompt = custom.trim() || append ? { ...(custom.trim() ? { replace: custom } : {}), ...(append ? { append } : {}) } : undefined
  const agents = agentTypesFrom(init.agents ?? {}, 'the SDK program (initialize)')
  for (const problem of agents.problems) problems.push(`The SDK's agents in initialize: ${problem} It was left out.`)
  if (init.jsonSchema !== undefined) problems.push("The SDK's jsonSchema (structured output) is not supported and was ignored; the result is the model's text.")
  return { options: { ...(systemPrompt ? { systemPrompt } : {}), agentTypes: agents.types }, problems }
}
