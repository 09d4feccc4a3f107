import type { ToolCallInfo } from '../../src/agent/extensions.js'

let n = 0

/** A tool call as the policy sees it: raw arguments text plus the parsed value. */
export function call(name: string, input: Record<string, unknown>): ToolCallInfo {
  return { turn: 1, step: 1, callId: `c${++n}`, name, arguments: JSON.stringify(input), input }
}

export const bash = (command: string) => call('bash', { command })
