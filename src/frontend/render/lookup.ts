import { builtinTools } from '../../tools/registry.js'
import { TASK_TOOL } from '../../tools/task-facts.js'
import type { ShownTool, ToolLookup } from './tool-call.js'

/**
 * A lookup over the tools an agent runs (`agent.toolList`), falling back to the built-in tools for names it lacks:
 * a stored log shown without its agent (a replay, another process's session) still gets each built-in tool's display.
 */
export function toolLookup(tools: readonly (ShownTool & { name: string })[] = []): ToolLookup {
  const byName = new Map<string, ShownTool>()
  for (const tool of [...builtinTools(), TASK_TOOL, ...tools]) byName.set(tool.name, tool)
  return (name) => byName.get(name)
}

/** A lookup that reads the agent's current tool list at each call, since MCP tools come and go (`setTools`). */
export function liveToolLookup(list: () => readonly (ShownTool & { name: string })[]): ToolLookup {
  const builtin = toolLookup()
  return (name) => list().find((t) => t.name === name) ?? builtin(name)
}

/**
 * The lookup for an agent: its own tool list when it has one (`Agent.toolList`), read at each call. Surfaces hold the
 * agent through narrower interfaces (and tests through stand-ins without tools), so the list is optional here.
 */
export function agentToolLookup(agent: object): ToolLookup {
  return liveToolLookup(() => {
    const list = (agent as { toolList?: unknown }).toolList
    return Array.isArray(list) ? (list as (ShownTool & { name: string })[]) : []
  })
}
