import { z } from 'zod'
import { SUBAGENT_HOST_KEY, type SubagentHost } from './host.js'
import type { AgentType } from './agent-types.js'
import { TASK_TOOL } from '../tools/task-facts.js'
import { errorOutput, type Tool } from '../tools/tool.js'

// No length bounds in the schema (they cost tokens in every request); `run` refuses an empty prompt.
const schema = z.object({
  description: z.string(),
  prompt: z.string().describe('All the job needs'),
  subagent_type: z.string().optional(),
})

type Args = z.infer<typeof schema>

/**
 * Estimated tokens (UTF-8 bytes / 4) the listing of agent types may take. Types are listed in their order (built-in
 * first) until it is spent; the rest are counted, so 156 agent files cost this much, not ~9K tokens per request.
 */
export const AGENT_LISTING_TOKEN_BUDGET = 160

const tokens = (text: string): number => Math.ceil(Buffer.byteLength(text, 'utf8') / 4)

/**
 * What the model reads. It is part of the cached prefix, so it depends only on the agent types of the session
 * (fixed when the session opens) and stays short: the listing fits AGENT_LISTING_TOKEN_BUDGET.
 */
function description(types: readonly AgentType[]): string {
  const listed: string[] = []
  let used = 0
  for (const t of types) {
    const entry = `${t.name} (${t.description})`
    if (used + tokens(entry) > AGENT_LISTING_TOKEN_BUDGET) break
    listed.push(entry)
    used += tokens(entry)
  }
  const left = types.length - listed.length
  if (left) listed.push(`${left} more left out of this list; use a name the user gives`)
  const list = listed.join(', ')
  return `Delegate a self-contained job to a fresh subagent; you get only its answer. Pays for broad searches and independent work (calls in one step run in parallel); not for quick lookups. Types: ${list}.`
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
