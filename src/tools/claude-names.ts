import { builtinTools } from './registry.js'
import { TASK_TOOL } from './task-facts.js'

/**
 * Rein's tool names and Claude Code's, both ways: the one table that stream-json output, `--allowedTools` /
 * `--disallowedTools` / `--tools` and hook payloads go through. Each tool declares its Claude Code name in its own
 * file (`peerNames.claudeCode`); this table is read from those declarations, so a tool cannot be renamed in one
 * place and not another. A tool Claude Code has no name for (MCP tools, `mcp__server__tool`) keeps its own name.
 * Built on first use: tool modules import the read guard, which imports the permission rules, which import this.
 */
let table: { toClaude: Map<string, string>; toRein: Map<string, string> } | undefined

function names(): NonNullable<typeof table> {
  if (!table) {
    table = { toClaude: new Map(), toRein: new Map() }
    for (const tool of [...builtinTools(), TASK_TOOL]) {
      if (!tool.peerNames) continue
      table.toClaude.set(tool.name, tool.peerNames.claudeCode)
      table.toRein.set(tool.peerNames.claudeCode.toLowerCase(), tool.name)
      table.toRein.set(tool.name.toLowerCase(), tool.name)
    }
  }
  return table
}

/** The name Claude Code gives Rein's tool `name` (`read` → `Read`); the name itself when Claude Code has none. */
export function claudeToolName(name: string): string {
  return names().toClaude.get(name) ?? name
}

/** Rein's tool for a name in either spelling, any case (`Bash`, `bash` → `bash`); undefined when no built-in tool has it. */
export function reinToolName(name: string): string | undefined {
  return names().toRein.get(name.toLowerCase())
}

/** Every built-in tool's Claude Code name, for messages that list what may be written. */
export function claudeToolNames(): string[] {
  return [...names().toClaude.values()]
}
