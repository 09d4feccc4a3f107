import { createHash } from 'node:crypto'

/** What DeepSeek (and the OpenAI function-calling wire) accepts as a tool name. */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/

/** The prefix every MCP tool name starts with; permission rules match `mcp__<server>__*` against it. */
export function serverPrefix(server: string): string {
  return `mcp__${sanitize(server)}__`
}

function sanitize(text: string): string {
  return text.replace(/[^a-zA-Z0-9_-]/g, '_')
}

/**
 * The name the model sees for a server's tool: `mcp__<server>__<tool>`, with every character outside
 * `[a-zA-Z0-9_-]` replaced by `_`. A name longer than 64 characters keeps its first 55 and ends with `_` and 8 hex
 * digits of the full name's hash, so it stays stable across restarts and distinct from its neighbours.
 */
export function mcpToolName(server: string, tool: string): string {
  const full = serverPrefix(server) + sanitize(tool)
  if (full.length <= 64) return full
  return `${full.slice(0, 55)}_${createHash('sha256').update(`${server}\u0000${tool}`).digest('hex').slice(0, 8)}`
}

/**
 * Names for a server's tools, in the order given. Two tools whose names collide after sanitizing (`a.b`, `a_b`)
 * are told apart by a hash suffix on the later one, so each model-visible name maps to exactly one tool.
 */
export function uniqueToolNames(server: string, tools: readonly string[], taken: ReadonlySet<string> = new Set()): string[] {
  const used = new Set(taken)
  return tools.map((tool) => {
    let name = mcpToolName(server, tool)
    if (used.has(name)) {
      const suffix = createHash('sha256').update(`${server}\u0000${tool}`).digest('hex').slice(0, 8)
      name = `${name.slice(0, 55)}_${suffix}`
    }
    used.add(name)
    return name
  })
}
