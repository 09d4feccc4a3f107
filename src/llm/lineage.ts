/**
 * The key under which a message list may name its lineage (`list[LINEAGE]`): an object shared by lists that extend one
 * another. Contract: two lists with the same lineage hold the same message objects at every index below the shorter
 * one's length, so the longer is the shorter plus what follows. A list without one promises nothing. The session's
 * surface hands out its message lists with one lineage per backing array (a replace starts a new one); `FoldCache`
 * reads it to know a request extends the last without comparing the whole list.
 */
export const LINEAGE: unique symbol = Symbol('rein.message-list.lineage')

/** The lineage `list` carries, if any. */
export function lineageOf(list: readonly unknown[]): object | undefined {
  const lineage: unknown = (list as { [LINEAGE]?: unknown })[LINEAGE]
  return typeof lineage === 'object' && lineage !== null ? lineage : undefined
}
