import type { ToolCallInfo } from '../../src/agent/extensions.js'
import { builtinTools } from '../../src/tools/registry.js'
import { toolFacts } from '../../src/tools/tool.js'

let n = 0

/**
 * A tool call as the policy sees it: raw arguments text, the parsed value and, as the tool runner attaches them, the
 * facts of the built-in tool of that name (none for an MCP or unknown name).
 */
export function call(name: string, input: Record<string, unknown>): ToolCallInfo {
  const tool = toolFacts(builtinTools().find((t) => t.name === name))
  return { turn: 1, step: 1, callId: `c${++n}`, name, arguments: JSON.stringify(input), input, ...(tool ? { tool } : {}) }
}

export const bash = (command: string) => call('bash', { command })
