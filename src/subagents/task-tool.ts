import { z } from 'zod'
import { SUBAGENT_HOST_KEY, type SubagentHost } from './host.js'
import type { AgentType } from './agent-types.js'
import { TASK_TOOL } from '../tools/task-facts.js'
import { errorOutput, type Tool } from '../tools/tool.js'
import { AGENT_LISTING_CAP, estimateTokens, fitListing, LEFT_OUT_NAMES_TOKENS, leftOutSentence, listingSummary } from '../prompt-files/listing-budget.js'

// No length bounds in the schema (they cost tokens in every request); `run` refuses an empty prompt.
const schema = z.object({
  description: z.string(),
  prompt: z.string().describe('All the job needs'),
  subagent_type: z.string().optional(),
})

type Args = z.infer<typeof schema>

/** The most tokens the agent types' listing takes of the prompt files' one budget (`src/prompt-files/listing-budget.ts`). */
export const AGENT_LISTING_TOKEN_BUDGET = AGENT_LISTING_CAP

/**
 * The types as the model reads them, in their order (built-in first) while they fit AGENT_LISTING_TOKEN_BUDGET, each
 * with its description's summary; the rest are named as far as a short tail allows, and an unknown name answers with
 * the whole list. `tokens` is what the listing took, which the skills listing leaves to the agents.
 */
export function agentListing(types: readonly AgentType[]): { text: string; tokens: number } {
  const entries = types.map((t) => ({ name: t.name, line: `${t.name} (${listingSummary(t.description)})` }))
  // When not all fit, the tail naming the rest is paid for out of the same budget.
  const all = fitListing(entries, AGENT_LISTING_TOKEN_BUDGET)
  const fit = all.left.length ? fitListing(entries, AGENT_LISTING_TOKEN_BUDGET - LEFT_OUT_NAMES_TOKENS - 30) : all
  const tail = fit.left.length ? [`${leftOutSentence({ one: 'agent', many: 'agents' }, fit.left)} (any of them may be named; an unknown name answers with them all)`] : []
  const text = [...fit.lines, ...tail].join(', ')
  return { text, tokens: estimateTokens(text) }
}

/**
 * What the model reads. It is part of the cached prefix, so it depends only on the agent types of the session
 * (fixed when the session opens) and stays short: the listing fits AGENT_LISTING_TOKEN_BUDGET.
 */
function description(types: readonly AgentType[]): string {
  return `Delegate a self-contained job to a fresh subagent; you get only its answer. Pays for broad searches and independent work (calls in one step run in parallel); not for quick lookups. Types: ${agentListing(types).text}.`
}

/**
 * The `task` tool (Claude Code's `Task`). It runs a child agent to completion through the session's subagent host
 * (src/subagents/host.ts) and returns the child's final answer. Marked read-only so that several calls in one step
 * run together: the tool itself changes nothing, and every call the child makes is judged on its own.
 */
export function createTaskTool(types: readonly AgentType[]): Tool<Args> {
  return {
    ...TASK_TOOL,
    description: description(types),
    schema,
    kind: 'think',
    async run(args, ctx) {
      const host = ctx.state.extra.get(SUBAGENT_HOST_KEY) as SubagentHost | undefined
      if (!host) return errorOutput('Error: subagents are not available in this session; do the job yourself.')
      if (!args.prompt.trim()) return errorOutput('Error: the prompt is empty; write the whole job into it, since the subagent sees nothing else.')
      return host.run(args, ctx)
    },
  }
}
