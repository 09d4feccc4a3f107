/** The `@word` the caret is in: where it starts and what is typed after the `@`. */
export function mentionAt(text: string, caret: number): { start: number; query: string } | undefined {
  const match = /(?:^|\s)@(\S*)$/.exec(text.slice(0, caret))
  if (!match) return undefined
  return { start: caret - match[1].length - 1, query: match[1] }
}
