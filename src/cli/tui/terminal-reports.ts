import { chooseTheme, setTheme, takeBackgroundReply, themeSetting, type ThemeName, type ThemeSetting } from './theme.js'

/**
 * What the terminal tells Rein about itself on stdin, read out before any key handler sees it: focus changes (after
 * `FOCUS_REPORTS_ON`, the terminal sends `ESC [ I` on focus and `ESC [ O` on blur) and its reply to the background
 * query. ink would hand these to the editor as typed text (`[I`), so `watchTerminalReports` takes them out of every
 * `stdin.read()` — the first frame's key holding and ink both read that way. A report split across two reads is
 * left as it came (terminals write each report in one piece).
 */
export const FOCUS_REPORTS_ON = '\x1b[?1004h'
export const FOCUS_REPORTS_OFF = '\x1b[?1004l'

// Reports start with ESC: the byte is the point of the patterns.
// eslint-disable-next-line no-control-regex
const FOCUS = /\x1b\[([IO])/g
// eslint-disable-next-line no-control-regex
const REPORT_START = /\x1b(?:\[[IO]|\]11;)/

export interface TerminalState {
  /** Whether the terminal window has focus; undefined until the terminal has reported it once. */
  focused?: boolean
  /** The theme the terminal's background calls for, once it answered the background query. */
  background?: ThemeName
}

const state: TerminalState = {}
const backgroundListeners = new Set<(theme: ThemeName) => void>()

/** What the terminal has reported so far. */
export function terminalState(): Readonly<TerminalState> {
  return state
}

/** Calls `listener` when the background reply arrives (at once when it already has). Returns the unsubscribe. */
export function onBackground(listener: (theme: ThemeName) => void): () => void {
  if (state.background) listener(state.background)
  backgroundListeners.add(listener)
  return () => backgroundListeners.delete(listener)
}

/** The input with every report taken out, and the state they carried applied. */
export function takeReports(input: string): string {
  if (!REPORT_START.test(input)) return input
  const { theme, rest } = takeBackgroundReply(input)
  if (theme) {
    state.background = theme
    for (const listener of backgroundListeners) listener(theme)
  }
  return rest.replace(FOCUS, (_, which: string) => {
    state.focused = which === 'I'
    return ''
  })
}

/**
 * Wraps `stdin.read` so reports never reach a reader. Chunks are handled as latin1 (one character per byte), so a
 * multi-byte character is passed through byte for byte. Returns the undo.
 */
export function watchTerminalReports(stdin: NodeJS.ReadStream): () => void {
  const read = stdin.read.bind(stdin)
  const filtered = (size?: number): string | Buffer | null => {
    for (;;) {
      const chunk = read(size) as string | Buffer | null
      if (chunk === null) return null
      const text = typeof chunk === 'string' ? chunk : chunk.toString('latin1')
      const kept = takeReports(text)
      if (kept === text) return chunk
      if (kept) return typeof chunk === 'string' ? kept : Buffer.from(kept, 'latin1')
    }
  }
  stdin.read = filtered as typeof stdin.read
  return () => {
    stdin.read = read as typeof stdin.read
  }
}

let followed: (() => void) | undefined

/**
 * Applies a theme setting: a fixed theme at once; `auto` from `COLORFGBG` or the background reply, and again if that
 * reply arrives later (it never holds up a frame: until then the UI draws dark).
 */
export function applyThemeSetting(value: ThemeSetting, env: NodeJS.ProcessEnv): void {
  followed?.()
  followed = undefined
  setTheme(chooseTheme(value, env, state.background), value)
  if (value !== 'auto') return
  followed = onBackground(() => {
    if (themeSetting() === 'auto') setTheme(chooseTheme('auto', env, state.background), 'auto')
  })
}

/** Forgets what was reported (tests). */
export function resetTerminalState(): void {
  delete state.focused
  delete state.background
  backgroundListeners.clear()
}
