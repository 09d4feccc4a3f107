import { parseRule } from '../permissions/rules.js'

/**
 * Allow rules that hold only while something is active: a custom command's `allowed-tools` for the turn its prompt
 * runs, a skill's `allowed-tools` from the moment the model loads it until the turn ends. The permission policy reads
 * `rules()` on every call; deny and ask rules, protected paths and plan mode still apply over them.
 */
export class ToolGrants {
  private readonly byOwner = new Map<string, string[]>()

  /** Grants `rules` under `owner` (replacing what it held); returns one sentence per rule that is not a rule. */
  grant(owner: string, rules: readonly string[]): string[] {
    const problems: string[] = []
    const valid: string[] = []
    for (const text of rules) {
      const rule = parseRule(text)
      if ('error' in rule) problems.push(`${owner} lists ${rule.error} in allowed-tools; that entry is ignored.`)
      else valid.push(text)
    }
    if (valid.length) this.byOwner.set(owner, valid)
    return problems
  }

  revoke(owner: string): void {
    this.byOwner.delete(owner)
  }

  rules(): string[] {
    return [...this.byOwner.values()].flat()
  }

  owners(): string[] {
    return [...this.byOwner.keys()]
  }
}
