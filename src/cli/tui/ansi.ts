/**
 * The few SGR styles the conversation uses, as string wrappers. Each closes with its own reset code (not a full
 * reset), so styles nest.
 */
const wrap = (open: number, close: number) => (s: string) => `\x1b[${open}m${s}\x1b[${close}m`

export const bold = wrap(1, 22)
export const dim = wrap(2, 22)
export const italic = wrap(3, 23)
export const underline = wrap(4, 24)
export const strike = wrap(9, 29)
export const red = wrap(31, 39)
export const green = wrap(32, 39)
export const yellow = wrap(33, 39)
export const blue = wrap(34, 39)
export const magenta = wrap(35, 39)
export const cyan = wrap(36, 39)
export const gray = wrap(90, 39)

// The ESC character is the point of this pattern: it matches SGR and other CSI sequences.
// eslint-disable-next-line no-control-regex
const ansiPattern = /\x1b\[[0-9;?]*[ -/]*[@-~]/g

/** The text without escape sequences: what a person reads. */
export function stripAnsi(s: string): string {
  return s.replace(ansiPattern, '')
}
