import { withoutCiEnv } from './without-ci.js'

/**
 * Syntax highlighting for code blocks, loaded on demand. `cli-highlight` brings highlight.js with every language it
 * knows (about half of the terminal UI's code, and tens of milliseconds to evaluate), which the first frame never
 * needs. Until `loadHighlighter()` has resolved, `highlightCode` answers `undefined` and code is shown plain; the UI
 * awaits the load before anything that can show a code block is drawn for good (history of a resumed session, the
 * answer of the first request; see start-up.ts), so no finished message is ever printed unhighlighted.
 */
type Highlighter = Pick<typeof import('cli-highlight'), 'highlight' | 'supportsLanguage'>

let highlighter: Highlighter | undefined
let loading: Promise<void> | undefined

/** Loads the highlighter once; later calls share the first load. Never rejects: without it code stays plain. */
export function loadHighlighter(): Promise<void> {
  // Its own chalk reads `CI` when it loads: out of sight of it, as ink's is (an interactive terminal is never CI).
  loading ??= withoutCiEnv(() => import('cli-highlight')).then(
    ({ highlight, supportsLanguage }) => {
      highlighter = { highlight, supportsLanguage }
    },
    () => {
      // A highlighter that cannot load leaves code blocks plain, which is still right.
    },
  )
  return loading
}

/**
 * `code` highlighted as `language`, or `undefined` when the highlighter is not loaded, does not know the language,
 * or fails on the text. Only named, known languages are highlighted: guessing costs time on every streamed frame, and
 * highlight.js writes to the console for unknown names, which would tear the screen.
 */
export function highlightCode(code: string, language: string): string | undefined {
  if (!highlighter?.supportsLanguage(language)) return undefined
  try {
    return highlighter.highlight(code, { language, ignoreIllegals: true })
  } catch {
    // A highlighter failure leaves the plain code, which is still right.
    return undefined
  }
}
