import type { DOMElement } from 'ink'
import stringWidth from 'string-width'

/** Where a box sits in ink's live output (columns and rows from its top-left), and how wide it is. */
export interface BoxPlace {
  x: number
  y: number
  width: number
}

/**
 * A box's place in the live output, from the layout ink computed for the last frame (yoga; `<Static>` is absolutely
 * positioned, so it takes no rows). Undefined before the first layout.
 */
export function placeOf(node: DOMElement | null): BoxPlace | undefined {
  const width = node?.yogaNode?.getComputedWidth()
  if (!node || width === undefined) return undefined
  let x = 0
  let y = 0
  for (let at: DOMElement | undefined = node; at; at = at.parentNode) {
    if (!at.yogaNode) return undefined
    x += at.yogaNode.getComputedLeft()
    y += at.yogaNode.getComputedTop()
  }
  return { x: Math.round(x), y: Math.round(y), width: Math.round(width) }
}

/** The height of ink's whole live output, from the root of the node's tree. */
export function outputHeight(node: DOMElement | null): number {
  let root = node ?? undefined
  while (root?.parentNode) root = root.parentNode
  return Math.round(root?.yogaNode?.getComputedHeight() ?? 0)
}

export function samePlace(a: BoxPlace | undefined, b: BoxPlace | undefined): boolean {
  return a?.x === b?.x && a?.y === b?.y && a?.width === b?.width
}

/** The editor box's frame: a round border and one column of padding on each side, then the 2-column `› ` prefix. */
const BORDER = 1
const PADDING = 1
const PREFIX = 2

/**
 * The terminal cell of the editor's caret, relative to ink's output origin, for `useCursor` (so an input method
 * composes in place). `lines` are the editor rows as drawn (tabs already spaces), `cursorLine` the row holding the
 * caret and `beforeCaret` its text left of the caret; `firstRow` is 1 when a "… lines above" row comes first.
 * A row longer than the box wraps; its cells are counted by display width (CJK takes two).
 */
export function caretCell(box: BoxPlace, lines: readonly string[], cursorLine: number, beforeCaret: string, firstRow: number): { x: number; y: number } {
  const inner = Math.max(1, box.width - 2 * (BORDER + PADDING))
  let row = box.y + BORDER + firstRow
  for (let i = 0; i < cursorLine; i++) row += Math.max(1, Math.ceil((PREFIX + stringWidth(lines[i])) / inner))
  const column = PREFIX + stringWidth(beforeCaret)
  return { x: box.x + BORDER + PADDING + (column % inner), y: row + Math.floor(column / inner) }
}
