/**
 * Bracketed paste: with mode 2004 on, the terminal wraps pasted text in ESC[200~ … ESC[201~, so a paste can be told
 * from typing even when typed keys arrive in one read (typed ahead before the UI was ready, tmux `send-keys "text"
 * Enter`, a laggy SSH link). ink hands each marker to `useInput` as its own input with the ESC stripped.
 */

export const BRACKETED_PASTE_ON = '\x1b[?2004h'
export const BRACKETED_PASTE_OFF = '\x1b[?2004l'

/** The markers as `useInput` sees them. */
export const PASTE_START = '[200~'
export const PASTE_END = '[201~'

export function isPasteMarker(input: string): boolean {
  return input === PASTE_START || input === PASTE_END
}

/**
 * A multi-character chunk read outside a bracketed paste is typing that arrived at once. A line break at its end is
 * the Enter key (a carriage return, or a newline once the terminal's cooked mode translated a key typed before the
 * UI took the terminal): the text before it is to be inserted and then submitted. Line breaks inside the chunk stay
 * newlines, so a paste in a terminal without bracketed paste keeps its lines.
 */
export function typedChunk(chunk: string): { text: string; submit: boolean } {
  if (chunk.length > 1 && /[\r\n]$/.test(chunk)) return { text: chunk.slice(0, -1), submit: true }
  return { text: chunk, submit: false }
}
