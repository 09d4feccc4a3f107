/** A command name offered for completion, with what `/help` says of it. */
export interface CommandChoice {
  name: string
  hint?: string
}

/** The `/partial` being typed when the whole editor text is one slash word (the cursor at its end); else undefined. */
export function slashAtCursor(text: string, cursor: number): string | undefined {
  if (cursor !== text.length) return undefined
  const match = /^\/([\w.:-]*)$/.exec(text)
  return match ? match[1] : undefined
}

/** Commands whose name starts with the partial (any case), then those containing it; at most `limit`. */
export function commandMatches(choices: readonly CommandChoice[], partial: string, limit = 5): CommandChoice[] {
  const lower = partial.toLowerCase()
  const starts = choices.filter((c) => c.name.toLowerCase().startsWith(lower))
  const contains = lower ? choices.filter((c) => !c.name.toLowerCase().startsWith(lower) && c.name.toLowerCase().includes(lower)) : []
  return [...starts, ...contains].slice(0, limit)
}
