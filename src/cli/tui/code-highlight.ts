import type { HLJSApi } from 'highlight.js'

/**
 * Syntax highlighting for code blocks, loaded on demand. highlight.js with every language it knows is about half of
 * the terminal UI's code and tens of milliseconds to evaluate, which the first frame never needs. Until
 * `loadHighlighter()` has resolved, `highlightCode` answers `undefined` and code is shown plain; the UI awaits the
 * load before anything that can show a code block is drawn for good (history of a resumed session, the answer of the
 * first request; see start-up.ts), so no finished message is ever printed unhighlighted.
 */
let highlighter: { hljs: HLJSApi; toAnsi: (html: string) => string } | undefined
let loading: Promise<void> | undefined

/** Loads the highlighter once; later calls share the first load. Never rejects: without it code stays plain. */
export function loadHighlighter(): Promise<void> {
  loading ??= Promise.all([import('highlight.js'), import('./code-ansi.js')]).then(
    ([{ default: hljs }, { ansiOfHighlighted }]) => {
      highlighter = { hljs, toAnsi: ansiOfHighlighted }
    },
    () => {
      // A highlighter that cannot load leaves code blocks plain, which is still right.
    },
  )
  return loading
}

/**
 * `code` highlighted as `language`, or `undefined` when the highlighter is not loaded, does not know the language,
 * or fails on the text. Only named, known languages are highlighted: guessing would cost time on every streamed
 * frame.
 */
export function highlightCode(code: string, language: string): string | undefined {
  if (!highlighter?.hljs.getLanguage(language)) return undefined
  try {
    return highlighter.toAnsi(highlighter.hljs.highlight(code, { language, ignoreIllegals: true }).value)
  } catch {
    // A highlighter failure leaves the plain code, which is still right.
    return undefined
  }
}
