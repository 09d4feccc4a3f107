/**
 * How a number of things reads in a sentence a person sees: digits grouped the English way (`2,310`) and the noun
 * in the singular for exactly one (`1 line`, `2 lines`). Nouns with an irregular plural pass it explicitly.
 */
export function counted(n: number, singular: string, plural = `${singular}s`): string {
  return `${grouped(n)} ${n === 1 ? singular : plural}`
}

/** A whole number with thousands separators, the same on every machine (not the host's locale). */
export function grouped(n: number): string {
  return n.toLocaleString('en-US')
}
