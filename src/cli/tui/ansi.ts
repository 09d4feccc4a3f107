/**
 * The few SGR styles the conversation uses, as string wrappers. Each closes with its own reset code (not a full
 * reset), so styles nest. Colours are not here: they come from the theme (theme.ts, `paint`).
 */
const wrap = (open: number, close: number) => (s: string) => `\x1b[${open}m${s}\x1b[${close}m`

export const bold = wrap(1, 22)
export const dim = wrap(2, 22)
export const italic = wrap(3, 23)
export const underline = wrap(4, 24)
export const strike = wrap(9, 29)

// The ESC character is the point of this pattern: it matches SGR and other CSI sequences.
// eslint-disable-next-line no-control-regex
const ansiPattern = /\x1b\[[0-9;?]*[ -/]*[@-~]/g

/** The text without escape sequences: what a person reads. */
export function stripAnsi(s: string): string {
  return s.replace(ansiPattern, '')
}
