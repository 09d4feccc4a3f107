import { stringArg } from './display-args.js'
import type { ToolDisplay, ToolFacts } from './tool.js'

/**
 * The facts of the `task` tool (src/subagents/task-tool.ts), which lives above the tools layer because it runs child
 * agents. Its name is known here so that permission rules (`Task`) and agent files parse wherever settings are read.
 * Read-only so that several calls in one step run together; `free` because the call itself changes nothing — every
 * call the child makes is judged by the policy on its own.
 */
export const TASK_TOOL: { name: 'task'; display: ToolDisplay } & ToolFacts = {
  name: 'task',
  readOnly: true,
  category: 'free',
  peerNames: { claudeCode: 'Task' },
  // A subagent's progress arrives as updates of this call (docs/subagents.md): the title names the agent and its job.
  display: {
    verb: 'Subagent',
    subject: (args) => {
      const type = stringArg(args, 'subagent_type') ?? 'general'
      const description = stringArg(args, 'description')
      return description === undefined ? type : `${type}: ${description}`
    },
  },
}
