import { lstatSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { createReadGuard } from './read-guard.js'
import { parseRule, type Rule } from './rules.js'

export interface CopyCheckOptions {
  /** The deny rules in force where the tree lives now (the user's and the tree's own project files). */
  deny: readonly string[]
  /** The home directory `~` stands for in rules. */
  home: string
  /** `$REIN_HOME`: sessions and credentials, which no copy may carry. */
  reinHome: string
  /** Judge each entry as if it were under this directory instead (a clone is judged by where its source lives). */
  judgeAs?: string
}

/**
 * The first entry under `tree` that the read rules cover where it lives now — a `Read` deny rule (`Read(~/.ssh/**)`),
 * Rein's home, a hard link to a covered file — with why; undefined when none. A copy of the tree elsewhere (a batch
 * task's workspace) would put such a file where the rule no longer reaches it, as an ordinary read inside the
 * workspace. Symbolic links are judged by where they point and never followed into; the walk visits every entry.
 */
export function coveredEntry(tree: string, options: CopyCheckOptions): { path: string; why: string } | undefined {
  const deny = options.deny.map((text) => parseRule(text)).filter((rule): rule is Rule => !('error' in rule))
  const root = options.judgeAs ?? tree
  const guard = createReadGuard({ deny, allow: () => [], match: { cwd: root, home: options.home }, reinHome: options.reinHome })
  const stack = [tree]
  while (stack.length) {
    const current = stack.pop() as string
    const judged = path.join(root, path.relative(tree, current))
    const why = guard.refuses(judged)
    if (why) return { path: judged, why }
    let entries: string[] = []
    try {
      if (lstatSync(current).isDirectory()) entries = readdirSync(current)
    } catch {
      continue // Vanished or unreadable: the copy cannot carry it either.
    }
    for (const name of entries) stack.push(path.join(current, name))
  }
  return undefined
}
