/** One entry of a plan as ACP's `plan` update carries it. */
export interface PlanEntry {
  content: string
  priority: 'high' | 'medium' | 'low'
  status: 'pending' | 'in_progress' | 'completed'
}

/**
 * A Markdown plan as a list of entries for an editor's plan view: each top-level list item (`-`, `*`, `1.`) is one
 * entry, its continuation lines folded in; a plan with no list is one entry holding the whole text.
 */
export function planEntries(plan: string): PlanEntry[] {
  const items: string[] = []
  let current: string | undefined
  for (const line of plan.split(/\r?\n/)) {
    const item = /^(?:[-*+]|\d+[.)])\s+(.*)$/.exec(line)
    if (item) {
      if (current !== undefined) items.push(current)
      current = item[1].trim()
    } else if (current !== undefined && /^\s+\S/.test(line)) {
      current += ` ${line.trim()}`
    } else if (current !== undefined && line.trim()) {
      items.push(current)
      current = undefined
    }
  }
  if (current !== undefined) items.push(current)
  const entries = items.length ? items : [plan.trim()]
  return entries.map((content) => ({ content, priority: 'medium', status: 'pending' }))
}
