/**
 * The prompt editor as a value: multi-line text, a cursor (a UTF-16 offset into `text`), and prompt history.
 * Every operation returns a new state; the component only maps keys to operations.
 */
export interface EditorState {
  text: string
  cursor: number
  /** Earlier prompts, oldest first. */
  history: readonly string[]
  /** Index into `history` while browsing it; null while editing a fresh draft. */
  browsing: number | null
  /** The draft put aside while browsing history. */
  draft: string
}

export function emptyEditor(history: readonly string[] = []): EditorState {
  return { text: '', cursor: 0, history, browsing: null, draft: '' }
}

/** Inserts typed or pasted text at the cursor. Pasted carriage returns become newlines, so a paste stays intact. */
export function insert(state: EditorState, input: string): EditorState {
  const clean = input.replace(/\r\n?/g, '\n')
  const text = state.text.slice(0, state.cursor) + clean + state.text.slice(state.cursor)
  return { ...state, text, cursor: state.cursor + clean.length }
}

export function backspace(state: EditorState): EditorState {
  if (state.cursor === 0) return state
  const text = state.text.slice(0, state.cursor - 1) + state.text.slice(state.cursor)
  return { ...state, text, cursor: state.cursor - 1 }
}

export function deleteForward(state: EditorState): EditorState {
  if (state.cursor >= state.text.length) return state
  return { ...state, text: state.text.slice(0, state.cursor) + state.text.slice(state.cursor + 1) }
}

export function moveLeft(state: EditorState): EditorState {
  return { ...state, cursor: Math.max(0, state.cursor - 1) }
}

export function moveRight(state: EditorState): EditorState {
  return { ...state, cursor: Math.min(state.text.length, state.cursor + 1) }
}

function lineStart(text: string, cursor: number): number {
  return text.lastIndexOf('\n', cursor - 1) + 1
}

function lineEnd(text: string, cursor: number): number {
  const end = text.indexOf('\n', cursor)
  return end < 0 ? text.length : end
}

export function moveHome(state: EditorState): EditorState {
  return { ...state, cursor: lineStart(state.text, state.cursor) }
}

export function moveEnd(state: EditorState): EditorState {
  return { ...state, cursor: lineEnd(state.text, state.cursor) }
}

/** Deletes from the cursor back to the start of the line (Ctrl+U). */
export function killLineBefore(state: EditorState): EditorState {
  const start = lineStart(state.text, state.cursor)
  return { ...state, text: state.text.slice(0, start) + state.text.slice(state.cursor), cursor: start }
}

/** Deletes the word before the cursor (Ctrl+W). */
export function killWordBefore(state: EditorState): EditorState {
  const before = state.text.slice(0, state.cursor)
  const start = before.replace(/\S+\s*$/, '').length
  return { ...state, text: state.text.slice(0, start) + state.text.slice(state.cursor), cursor: start }
}

/** Up: move to the line above; on the first line, step back through history. */
export function moveUp(state: EditorState): EditorState {
  const start = lineStart(state.text, state.cursor)
  if (start > 0) {
    const column = state.cursor - start
    const prevStart = lineStart(state.text, start - 1)
    return { ...state, cursor: Math.min(prevStart + column, start - 1) }
  }
  if (!state.history.length) return state
  const index = state.browsing === null ? state.history.length - 1 : Math.max(0, state.browsing - 1)
  const draft = state.browsing === null ? state.text : state.draft
  const text = state.history[index]
  return { ...state, text, cursor: text.length, browsing: index, draft }
}

/** Down: move to the line below; on the last line while browsing history, step forward (past the end: the draft). */
export function moveDown(state: EditorState): EditorState {
  const end = lineEnd(state.text, state.cursor)
  if (end < state.text.length) {
    const column = state.cursor - lineStart(state.text, state.cursor)
    const nextEnd = lineEnd(state.text, end + 1)
    return { ...state, cursor: Math.min(end + 1 + column, nextEnd) }
  }
  if (state.browsing === null) return state
  const index = state.browsing + 1
  if (index >= state.history.length) {
    return { ...state, text: state.draft, cursor: state.draft.length, browsing: null, draft: '' }
  }
  const text = state.history[index]
  return { ...state, text, cursor: text.length, browsing: index }
}

/** Empties the editor and records `sent` (when non-empty) as the newest history entry. */
export function commit(state: EditorState, sent: string): EditorState {
  const history = sent.trim() && state.history[state.history.length - 1] !== sent ? [...state.history, sent] : state.history
  return emptyEditor(history)
}

/** Replaces the whole text (a queued message taken back, a forked prompt), cursor at the end. */
export function setText(state: EditorState, text: string): EditorState {
  return { ...state, text, cursor: text.length, browsing: null }
}

/** The `@path` word being typed at the cursor, if any: its start offset and the partial path after `@`. */
export function mentionAtCursor(state: EditorState): { start: number; partial: string } | undefined {
  const before = state.text.slice(0, state.cursor)
  const match = /(^|\s)@([^\s@]*)$/.exec(before)
  if (!match) return undefined
  return { start: state.cursor - match[2].length - 1, partial: match[2] }
}

/** Replaces the `@partial` at the cursor with `@path ` (a trailing space ends the mention). */
export function completeMention(state: EditorState, path: string): EditorState {
  const mention = mentionAtCursor(state)
  if (!mention) return state
  const insertText = `@${path} `
  const text = state.text.slice(0, mention.start) + insertText + state.text.slice(state.cursor)
  return { ...state, text, cursor: mention.start + insertText.length }
}
