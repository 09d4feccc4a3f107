import { Box, Text, useCursor, useInput, type DOMElement, type Key } from 'ink'
import { PASTE_END, PASTE_START, typedChunk } from './bracketed-paste.js'
import { useEffect, useLayoutEffect, useRef, useState } from 'react'
import * as ed from './editor-state.js'
import { attachmentKind } from './attachments.js'
import { printable } from './printable.js'
import { SHELL_HINT } from './shell-mode.js'
import * as hs from './history-search.js'
import { caretCell, placeOf, samePlace, type BoxPlace } from './caret.js'
import { useScreenKeys } from './screen-keys.js'
import { pasteClipboardImage } from './clipboard.js'
import * as vim from './vim.js'
import { counted } from '../../text/count.js'
import { commandMatches, slashAtCursor, type CommandChoice } from '../../frontend/commands/completion.js'

/** How a finished prompt leaves the editor: Enter sends (or steers); Alt+Enter/Tab queues a follow-up. */
export type SubmitHow = 'send' | 'queue'

export interface PromptEditorProps {
  active: boolean
  busy: boolean
  /** Workspace files for `@path` completion, relative to the working directory. */
  files: readonly string[]
  /** Slash commands for `/` completion: the built-ins and the custom commands (src/slash). */
  commands?: readonly CommandChoice[]
  history?: readonly string[]
  /** Text to start with (a forked prompt); read on mount. */
  initialText?: string
  onSubmit(text: string, how: SubmitHow): void
  /** The last queued message's text, withdrawn from the inbox; undefined when there is none. */
  onTakeBack(): string | undefined
  onCancel(): void
  onExpand(): void
  onExit(): void
  onHint(hint: string | undefined): void
  /**
   * A box above the editor that may take a key first (the permission prompt). Called for every key while the editor
   * is active, before the editor acts; returning true means the box took it and the editor ignores it.
   */
  claimKey?: KeyClaim
  /** The box above waits for an answer: the placeholder says how typed text and the box's keys are told apart. */
  asking?: boolean
  /** The most text rows the editor may take; a longer prompt scrolls with the cursor, so the box stays on screen. */
  maxRows?: number
  /** Shift+Tab: the next permission mode. */
  onCycleMode?(): void
  /** Ctrl+C on an empty editor: returns true when something running (a `!` command) took it and stopped. */
  onInterrupt?(): boolean
  /** Vim keys (`/vim`): normal and insert mode over the same editor (vim.ts). */
  vim?: boolean
  /** A key that could not do its job says why (Ctrl+G without an editor). */
  onWarn?(text: string): void
}

/** What the editor tells a box that may claim a key: whether it is empty, mid-paste, and when text last arrived. */
export interface EditorFocus {
  empty: boolean
  pasting: boolean
  /** Milliseconds since the editor last received typed text (Infinity when never). */
  sinceTextMs: number
}

export type KeyClaim = (input: string, key: Key, editor: EditorFocus) => boolean

/** How long the prompt box must stay put before the cursor is drawn again at its new place (ms). */
const PLACE_SETTLE_MS = 60

/** The window in which a second Ctrl+C exits. */
const EXIT_WINDOW_MS = 2000
const MENTION_CHOICES = 5

function mentionMatches(files: readonly string[], partial: string): string[] {
  const lower = partial.toLowerCase()
  const starts = files.filter((f) => f.toLowerCase().startsWith(lower))
  const contains = lower ? files.filter((f) => !f.toLowerCase().startsWith(lower) && f.toLowerCase().includes(lower)) : []
  return [...starts, ...contains].slice(0, MENTION_CHOICES)
}

/**
 * The multi-line prompt editor. Keeps its own state so a keystroke re-renders only this component, never the
 * conversation: that is what keeps typing fast on a long session.
 */
export function PromptEditor(props: PromptEditorProps) {
  const [state, setState] = useState(() => ed.setText(ed.emptyEditor(props.history), props.initialText ?? ''))
  const lastCtrlC = useRef(0)
  /** Inside a bracketed paste: everything is text, line breaks and tabs included, until the end marker. */
  const pasting = useRef(false)
  /** When typed or pasted text last reached the editor (ms since epoch): a box's digit keys ignore a fast burst. */
  const lastTextAt = useRef(0)
  const stateRef = useRef(state)
  stateRef.current = state
  /** Ctrl+R's search while it is open (history-search.ts); the editor shows its match. */
  const [search, setSearch] = useState<hs.HistorySearch | null>(null)
  const searchRef = useRef(search)
  searchRef.current = search
  const [vimState, setVimState] = useState<vim.VimState>(vim.VIM_INSERT)
  const vimRef = useRef(vimState)
  vimRef.current = vimState
  // Read by the key handler: ink re-attaches input listeners in an effect, which can run after a keystroke that
  // arrives right after a re-render; the ref makes such a keystroke see the current props.
  const propsRef = useRef(props)
  propsRef.current = props
  /** The bordered box, for its place in ink's output: the real cursor goes to the caret in it. */
  const boxRef = useRef<DOMElement>(null)
  const place = useRef<BoxPlace | undefined>(undefined)
  const [, setPlaced] = useState(0)
  const settleTimer = useRef<NodeJS.Timeout | undefined>(undefined)
  const caretRow = useRef<number | undefined>(undefined)
  const screen = useScreenKeys(boxRef, caretRow)
  const { setCursorPosition } = useCursor()
  // The layout of the frame just committed. A keystroke draws with it at once; when the box moved without one (the
  // live area above grew while streaming), one more draw follows once the moving stops, not one per streamed frame.
  useLayoutEffect(() => {
    const now = placeOf(boxRef.current)
    if (samePlace(now, place.current)) return
    place.current = now
    clearTimeout(settleTimer.current)
    settleTimer.current = setTimeout(() => setPlaced((n) => n + 1), PLACE_SETTLE_MS)
  })
  useEffect(() => () => clearTimeout(settleTimer.current), [])

  useEffect(() => {
    if (props.initialText) setState((s) => ed.setText(s, props.initialText ?? ''))
  }, [props.initialText])

  const mention = ed.mentionAtCursor(state)
  const matches = mention ? mentionMatches(props.files, mention.partial) : []
  const slash = slashAtCursor(state.text, state.cursor)
  const commands = slash !== undefined ? commandMatches(props.commands ?? [], slash) : []

  useInput(
    (input, key) => {
      const props = propsRef.current
      if (!props.active) return
      const s = stateRef.current
      const update = (next: ed.EditorState) => {
        if (next.text.length > s.text.length) lastTextAt.current = Date.now()
        stateRef.current = next
        setState(next)
      }
      const focus: EditorFocus = {
        empty: s.text.length === 0,
        pasting: pasting.current,
        sinceTextMs: lastTextAt.current ? Date.now() - lastTextAt.current : Number.POSITIVE_INFINITY,
      }
      if (props.claimKey?.(input, key, focus)) return
      if (input === PASTE_START || input === PASTE_END) {
        pasting.current = input === PASTE_START
        return
      }
      const setQuery = (next: hs.HistorySearch | null) => {
        searchRef.current = next
        setSearch(next)
      }
      const open = searchRef.current
      if (open) return searchKey(open, input, key, pasting.current, s, setQuery, update)
      if (key.ctrl && input === 'r') return setQuery(hs.startSearch(s.history, s.text))
      if (props.vim && !pasting.current) {
        const setVim = (next: vim.VimState) => {
          vimRef.current = next
          setVimState(next)
        }
        if (vimRef.current.mode === 'insert' && key.escape) {
          const normal = vim.enterNormal(s)
          setVim(normal.vim)
          return update(normal.editor)
        }
        if (vimRef.current.mode === 'normal' && input && !key.return && !key.escape && !key.tab) {
          const step = vim.normalKey(vimRef.current, s, input, key)
          if (step.handled) {
            setVim(step.vim)
            return update(step.editor)
          }
        }
      }
      if (pasting.current) {
        if (key.return) return update(ed.insert(s, '\n'))
        if (key.tab) return update(ed.insert(s, '\t'))
        if (input) update(ed.insert(s, input))
        return
      }
      if (key.ctrl && input === 'c') {
        if (s.text) {
          update(ed.setText(s, ''))
          props.onHint(undefined)
          return
        }
        if (props.onInterrupt?.()) return
        const now = Date.now()
        if (now - lastCtrlC.current < EXIT_WINDOW_MS) return props.onExit()
        lastCtrlC.current = now
        props.onHint('Press Ctrl+C again to exit')
        setTimeout(() => props.onHint(undefined), EXIT_WINDOW_MS)
        return
      }
      if (key.escape) return props.onCancel()
      if (key.ctrl && input === 'o') return props.onExpand()
      if (key.ctrl && input === 'l') return screen.repaint()
      if (key.ctrl && input === 'v') {
        const pasted = pasteClipboardImage()
        if (pasted.kind === 'failed') return props.onWarn?.(pasted.message)
        const before = s.text.slice(0, s.cursor)
        return update(ed.insert(s, `${before && !/\s$/.test(before) ? ' ' : ''}${pasted.path} `))
      }
      if (key.ctrl && input === 'g') {
        const edited = screen.editExternally(s.text)
        if (edited.kind === 'failed') return props.onWarn?.(edited.message)
        return update(ed.setText(s, edited.text))
      }
      const submit = (how: SubmitHow, from: ed.EditorState = s) => {
        const text = from.text
        if (!text.trim()) return update(from)
        update(ed.commit(from, text))
        props.onSubmit(text, how)
      }
      if (key.return) {
        if (key.shift) return update(ed.insert(s, '\n'))
        if (key.meta) return submit('queue')
        if (s.text[s.cursor - 1] === '\\') return update(ed.insert(ed.backspace(s), '\n'))
        return submit('send')
      }
      if (input === '\n') return update(ed.insert(s, '\n'))
      if (key.tab && key.shift) return props.onCycleMode?.()
      if (key.tab) {
        const m = ed.mentionAtCursor(s)
        const choices = m ? mentionMatches(props.files, m.partial) : []
        if (choices.length) return update(ed.completeMention(s, choices[0]))
        const partial = slashAtCursor(s.text, s.cursor)
        const command = partial !== undefined ? commandMatches(props.commands ?? [], partial)[0] : undefined
        if (command) return update(ed.setText(s, `/${command.name} `))
        return submit('queue')
      }
      if (key.upArrow) {
        if (!s.text) {
          const taken = props.onTakeBack()
          if (taken !== undefined) return update(ed.setText(s, taken))
        }
        return update(ed.moveUp(s))
      }
      if (key.downArrow) return update(ed.moveDown(s))
      if (key.leftArrow) return update(ed.moveLeft(s))
      if (key.rightArrow) return update(ed.moveRight(s))
      if (key.home || (key.ctrl && input === 'a')) return update(ed.moveHome(s))
      if (key.end || (key.ctrl && input === 'e')) return update(ed.moveEnd(s))
      if (key.ctrl && input === 'u') return update(ed.killLineBefore(s))
      if (key.ctrl && input === 'w') return update(ed.killWordBefore(s))
      if (key.ctrl && input === 'd') return update(ed.deleteForward(s))
      // Terminals send DEL (0x7f) for Backspace, which ink reports as `delete`; both erase backwards.
      if (key.backspace || key.delete) return update(ed.backspace(s))
      if (key.ctrl || key.meta || !input) return
      const typed = typedChunk(input)
      const next = insertChunk(s, typed.text)
      return typed.submit ? submit('send', next) : update(next)
    },
    { isActive: props.active },
  )

  const all = renderLines(search ? ed.setText(state, hs.acceptedText(state.history, search)) : state)
  const rows = Math.max(1, props.maxRows ?? all.length)
  const cursorRow = Math.max(0, all.findIndex((l) => l.cursor !== undefined))
  const top = all.length <= rows ? 0 : Math.min(Math.max(0, cursorRow - rows + 1), all.length - rows)
  const lines = all.slice(top, top + rows)
  const below = all.length - top - lines.length
  const shellMode = state.text.startsWith('!')
  const caretLine = lines.findIndex((l) => l.cursor !== undefined)
  const caret =
    props.active && place.current && caretLine >= 0
      ? caretCell(place.current, lines.map((l) => l.before + (l.cursor ?? '') + l.after), caretLine, lines[caretLine].before, top ? 1 : 0)
      : undefined
  caretRow.current = caret?.y
  setCursorPosition(caret)
  return (
    <Box flexDirection="column">
      <Box ref={boxRef} flexDirection="column" borderStyle="round" borderColor={shellMode ? 'magenta' : props.busy ? 'yellow' : 'gray'} paddingX={1}>
        {top ? <Text dimColor>  … {counted(top, 'line')} above</Text> : null}
        {lines.map((line, i) => (
          <Text key={top + i}>
            <Text color={shellMode ? 'magenta' : 'cyan'}>{top + i === 0 ? '› ' : '  '}</Text>
            {line.before}
            {props.active ? <Text inverse>{line.cursor ?? ''}</Text> : (line.cursor ?? '')}
            {line.after}
            {top + i === 0 && !state.text && !search ? (
              <Text dimColor>{placeholder(props)}</Text>
            ) : null}
          </Text>
        ))}
        {below ? <Text dimColor>  … {counted(below, 'line')} below</Text> : null}
      </Box>
      {screen.repainting ? <Text> </Text> : null}
      {props.vim ? <Text dimColor>  -- {vimState.mode === 'normal' ? 'NORMAL' : 'INSERT'} --</Text> : null}
      {search ? <Text color="cyan">  {hs.searchLine(state.history, search)}</Text> : null}
      {shellMode ? <Text color="magenta" dimColor>  ! {SHELL_HINT}</Text> : null}
      {state.text.startsWith('#') ? <Text color="cyan" dimColor>  # Enter adds this line to the workspace instructions (AGENTS.md)</Text> : null}
      {matches.length ? (
        <Box flexDirection="column" paddingLeft={2}>
          {matches.map((m, i) => (
            <Text key={m} color={i === 0 ? 'cyan' : undefined} dimColor={i !== 0}>
              @{printable(m)}
              <Text dimColor> · {attachmentKind(m)}</Text>
              {i === 0 ? ' (Tab)' : ''}
            </Text>
          ))}
        </Box>
      ) : null}
      {commands.length ? (
        <Box flexDirection="column" paddingLeft={2}>
          {commands.map((c, i) => (
            <Text key={c.name} color={i === 0 ? 'cyan' : undefined} dimColor={i !== 0}>
              /{c.name}
              {c.hint ? ` ${c.hint}` : ''}
              {i === 0 ? ' (Tab)' : ''}
            </Text>
          ))}
        </Box>
      ) : null}
    </Box>
  )
}

/** A key while Ctrl+R's search is open: typing searches, Ctrl+R goes older, Enter (or a move) takes the match, Esc cancels. */
function searchKey(
  open: hs.HistorySearch,
  input: string,
  key: Key,
  pasting: boolean,
  s: ed.EditorState,
  setQuery: (next: hs.HistorySearch | null) => void,
  update: (next: ed.EditorState) => void,
): void {
  const history = s.history
  if (pasting) return input ? setQuery(hs.typeInSearch(history, open, input)) : undefined
  if (key.ctrl && input === 'r') return setQuery(hs.searchOlder(history, open))
  if (key.escape || (key.ctrl && (input === 'c' || input === 'g'))) {
    setQuery(null)
    return update(ed.setText(s, open.draft))
  }
  if (key.backspace || key.delete) return setQuery(hs.eraseInSearch(history, open))
  if (key.return || key.tab || key.upArrow || key.downArrow || key.leftArrow || key.rightArrow) {
    setQuery(null)
    return update(ed.setText(s, hs.acceptedText(history, open)))
  }
  if (key.ctrl || key.meta || !input) return
  setQuery(hs.typeInSearch(history, open, input))
}

function placeholder(props: PromptEditorProps): string {
  if (props.asking) return 'type to steer; with the editor empty, ↑↓ Enter or a digit answers above'
  return props.busy ? 'steer the agent, or Tab to queue a follow-up' : 'ask Rein, or /help'
}

/**
 * Inserts a chunk of typed input. ink hands a multi-character read over whole; erase characters inside it (a
 * Backspace that arrived in the same read as other keys) still erase rather than landing in the text.
 */
function insertChunk(state: ed.EditorState, chunk: string): ed.EditorState {
  if (!/[\x7f\b]/.test(chunk)) return ed.insert(state, chunk)
  let next = state
  for (const piece of chunk.split(/([\x7f\b])/)) {
    if (piece === '\x7f' || piece === '\b') next = ed.backspace(next)
    else if (piece) next = ed.insert(next, piece)
  }
  return next
}

/** A tab drawn as spaces (ink measures a tab as no columns, which breaks the box); the text keeps the tab. */
const shown = (text: string) => text.replace(/\t/g, '    ')

/** Each editor line split at the cursor; the cursor shows as an inverted cell (a space at a line's end). */
function renderLines(state: ed.EditorState): { before: string; cursor?: string; after: string }[] {
  return rawLines(state).map((l) => ({ before: shown(l.before), cursor: l.cursor === undefined ? undefined : shown(l.cursor), after: shown(l.after) }))
}

function rawLines(state: ed.EditorState): { before: string; cursor?: string; after: string }[] {
  const out: { before: string; cursor?: string; after: string }[] = []
  let offset = 0
  for (const line of state.text.split('\n')) {
    const start = offset
    const end = offset + line.length
    if (state.cursor >= start && state.cursor <= end) {
      const at = state.cursor - start
      out.push({ before: line.slice(0, at), cursor: line[at] ?? ' ', after: line.slice(at + 1) })
    } else {
      out.push({ before: line, after: '' })
    }
    offset = end + 1
  }
  return out
}
