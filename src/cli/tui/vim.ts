import * as ed from './editor-state.js'

/**
 * The editor's optional vim keys (`/vim` turns them on and off), over editor-state.ts's pure operations. Insert mode
 * is the plain editor; Esc enters normal mode (the caret steps back onto the last character typed, as in vim). Normal
 * mode: h j k l, w b (word starts), 0 $ (line start and end), x (delete the character), dd (delete the line), and
 * i a A o back to insert. Enter still sends in both modes; Esc in normal mode does what Esc does without vim
 * (cancels a turn, twice opens /rewind). Keys normal mode does not know do nothing, so no stray letter lands in the
 * prompt.
 */
export interface VimState {
  mode: 'insert' | 'normal'
  /** The first key of a two-key command (`d` of `dd`). */
  pending?: 'd'
}

export const VIM_INSERT: VimState = { mode: 'insert' }

/** Esc in insert mode: normal mode, the caret one step left (not past the line's start). */
export function enterNormal(state: ed.EditorState): { vim: VimState; editor: ed.EditorState } {
  const start = lineStart(state.text, state.cursor)
  return { vim: { mode: 'normal' }, editor: state.cursor > start ? ed.moveLeft(state) : state }
}

type CharClass = 'space' | 'word' | 'punct'

function classOf(ch: string | undefined): CharClass {
  if (ch === undefined || /\s/.test(ch)) return 'space'
  return /\w/.test(ch) ? 'word' : 'punct'
}

function lineStart(text: string, cursor: number): number {
  return text.lastIndexOf('\n', cursor - 1) + 1
}

function lineEnd(text: string, cursor: number): number {
  const end = text.indexOf('\n', cursor)
  return end < 0 ? text.length : end
}

/** `w`: the start of the next word (a run of word characters or of punctuation), across lines. */
export function nextWordStart(text: string, cursor: number): number {
  let at = cursor
  const from = classOf(text[at])
  if (from !== 'space') while (at < text.length && classOf(text[at]) === from) at++
  while (at < text.length && classOf(text[at]) === 'space') at++
  return Math.min(at, text.length)
}

/** `b`: the start of this word, or of the one before when the caret is already at a word's start. */
export function previousWordStart(text: string, cursor: number): number {
  let at = cursor - 1
  while (at > 0 && classOf(text[at]) === 'space') at--
  const from = classOf(text[at])
  while (at > 0 && classOf(text[at - 1]) === from) at--
  return Math.max(0, at)
}

/** `dd`: the caret's line goes, with its line break; the caret lands at the start of the line that takes its place. */
export function deleteLine(state: ed.EditorState): ed.EditorState {
  const { text } = state
  const start = lineStart(text, state.cursor)
  const end = lineEnd(text, state.cursor)
  const cutStart = end === text.length && start > 0 ? start - 1 : start
  const cutEnd = end < text.length ? end + 1 : end
  const next = text.slice(0, cutStart) + text.slice(cutEnd)
  return { ...state, text: next, cursor: lineStart(next, Math.min(cutStart, next.length)) }
}

/**
 * One key in normal mode. `handled: false` means the key is not vim's (Enter, Esc, Ctrl+ keys): the editor's own
 * handling takes it.
 */
export function normalKey(vim: VimState, state: ed.EditorState, input: string, key: { ctrl?: boolean; meta?: boolean }): { handled: boolean; vim: VimState; editor: ed.EditorState } {
  if (key.ctrl || key.meta) return { handled: false, vim, editor: state }
  const done = (editor: ed.EditorState, next: VimState = { mode: 'normal' }) => ({ handled: true, vim: next, editor })
  const insert = (editor: ed.EditorState) => done(editor, VIM_INSERT)
  const { text, cursor } = state
  if (vim.pending === 'd') return input === 'd' ? done(deleteLine(state)) : done(state)
  switch (input) {
    case 'h':
      return done(cursor > lineStart(text, cursor) ? ed.moveLeft(state) : state)
    case 'l':
      return done(cursor < lineEnd(text, cursor) - 1 ? ed.moveRight(state) : state)
    case 'j':
      return done(ed.moveDown(state))
    case 'k':
      return done(ed.moveUp(state))
    case 'w':
      return done({ ...state, cursor: nextWordStart(text, cursor) })
    case 'b':
      return done({ ...state, cursor: previousWordStart(text, cursor) })
    case '0':
      return done(ed.moveHome(state))
    case '$':
      return done({ ...state, cursor: Math.max(lineStart(text, cursor), lineEnd(text, cursor) - 1) })
    case 'x':
      return done(ed.deleteForward(state))
    case 'd':
      return done(state, { mode: 'normal', pending: 'd' })
    case 'i':
      return insert(state)
    case 'a':
      return insert(cursor < lineEnd(text, cursor) ? ed.moveRight(state) : state)
    case 'A':
      return insert(ed.moveEnd(state))
    case 'o':
      return insert(ed.insert(ed.moveEnd(state), '\n'))
    default:
      // A key normal mode does not know (or a typed burst): nothing happens, nothing lands in the prompt.
      return done(state)
  }
}
