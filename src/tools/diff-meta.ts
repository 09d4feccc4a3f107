
/** Diffs larger than this stay out of the log: a UI shows "diff omitted" rather than the log growing by megabytes. */
const DIFF_CHAR_CAP = 64 * 1024
/** Inputs larger than this are not diffed at all: the line diff's cost grows with size times edit distance. */
const DIFF_INPUT_CAP = 2 * 1024 * 1024

/**
 * The unified diff of one file change for `ToolOutput.meta`, or `undefined` when it would be too large or too slow
 * to compute (the change itself is unaffected).
 */
export async function unifiedDiff(shown: string, before: string, after: string): Promise<string | undefined> {
  if (before.length + after.length > DIFF_INPUT_CAP) return undefined
  // Loaded on first use, like the other libraries only some tool calls need, to keep start-up short.
  const { createPatch } = await import('diff')
  const patch = createPatch(shown, before, after, undefined, undefined, { context: 3, timeout: 1000 })
  if (patch === undefined || patch.length > DIFF_CHAR_CAP) return undefined
  return patch
}
