import { builtinTools } from '../tools/registry.js'
import { TASK_TOOL } from '../tools/task-facts.js'

/**
 * Permission rules in the syntax users of other harnesses know: `Tool` or `Tool(pattern)`. Rule names are the
 * capitalized names (`Bash`, `Edit`, `WebFetch`); MCP tools use their full name (`mcp__server__tool`) and may end
 * in `*` (`mcp__server__*`).
 */
export interface Rule {
  /** The text as written in settings or on the command line. */
  text: string
  /** The canonical rule name: `Bash`, `Read`, … or an MCP tool name (possibly ending in `*`). */
  tool: string
  /** The part in parentheses; absent (or `*`) means every call of the tool. */
  pattern?: string
}

/**
 * The rule name for every spelling a user may write, lower-cased: each built-in tool's own name and its Claude Code
 * name (`bash` and `Bash` → `Bash`), as the tools declare them. Built on first use: the tool modules import the
 * read guard, which imports this module.
 */
let canonicalNames: Map<string, string> | undefined
function canonical(): Map<string, string> {
  if (!canonicalNames) {
    canonicalNames = new Map()
    for (const tool of [...builtinTools(), TASK_TOOL]) {
      if (!tool.peerNames) continue
      canonicalNames.set(tool.name.toLowerCase(), tool.peerNames.claudeCode)
      canonicalNames.set(tool.peerNames.claudeCode.toLowerCase(), tool.peerNames.claudeCode)
    }
  }
  return canonicalNames
}

/** Parses one rule; a malformed one gives a sentence saying what is wrong and what is expected. */
export function parseRule(text: string): Rule | { error: string } {
  const m = /^\s*([A-Za-z0-9_*-]+)\s*(?:\((.*)\))?\s*$/s.exec(text)
  if (!m) return { error: `"${text}" is not a rule; write Tool or Tool(pattern), e.g. Bash(npm test) or Edit(src/**)` }
  const [, name, inner] = m
  const ruleName = canonical().get(name.toLowerCase())
  if (!ruleName && !name.startsWith('mcp__')) {
    const known = [...new Set(canonical().values())].join(', ')
    return { error: `"${text}" names an unknown tool "${name}"; use one of ${known} or mcp__server__tool` }
  }
  if (name.includes('*') && !name.startsWith('mcp__')) return { error: `"${text}": only MCP rule names may use *` }
  if (inner !== undefined && inner.trim() === '') return { error: `"${text}" has empty parentheses; drop them to match every call` }
  const pattern = inner === undefined || inner.trim() === '*' ? undefined : inner.trim()
  return { text, tool: ruleName ?? name, ...(pattern !== undefined ? { pattern } : {}) }
}

/** Whether a rule's name covers a call of the tool with this rule name. */
export function ruleNameMatches(rule: Rule, ruleName: string): boolean {
  if (rule.tool.endsWith('*')) return ruleName.startsWith(rule.tool.slice(0, -1))
  return rule.tool === ruleName
}

/** Parses a list of rules, throwing on the first malformed one (callers validate settings before this). */
export function parseRules(texts: readonly string[]): Rule[] {
  return texts.map((text) => {
    const rule = parseRule(text)
    if ('error' in rule) throw new Error(`Invalid permission rule: ${rule.error}.`)
    return rule
  })
}
