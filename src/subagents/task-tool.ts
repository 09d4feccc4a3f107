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
 * What the model reads. It is part of the cached prefix, so it depends only on the agent types of the session
 * (fixed when the session opens) and stays short: the parent's fixed prompt may grow by at most ~120 tokens for it.
 */
function description(types: readonly AgentType[]): string {
  const list = types.map((t) => `${t.name} (${t.description})`).join(', ')
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
