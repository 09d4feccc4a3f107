import { blue, bold, cyan, gray, green, italic, magenta, red, underline, yellow } from './ansi.js'

/**
 * The terminal colours of highlight.js scopes (the part after `hljs-` of a class name). A scope not listed takes the
 * colour of the scope around it; text in no listed scope stays plain. Basic colours only, so every terminal shows
 * them and the terminal's own palette decides the shades.
 */
type Style = (text: string) => string

const THEME: Record<string, Style> = {
  keyword: magenta,
  'selector-tag': magenta,
  built_in: cyan,
  type: cyan,
  attr: cyan,
  attribute: cyan,
  property: cyan,
  literal: yellow,
  number: yellow,
  string: green,
  regexp: green,
  'template-tag': green,
  title: blue,
  name: blue,
  tag: blue,
  section: bold,
  comment: gray,
  quote: gray,
  meta: gray,
  doctag: gray,
  addition: green,
  deletion: red,
  link: underline,
  emphasis: italic,
  strong: bold,
}

/** highlight.js escapes exactly these five characters in text. */
const ENTITIES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&amp;': '&', '&quot;': '"', '&#x27;': "'" }

/**
 * The SGR-styled text of highlight.js's HTML output, which holds only `<span class="hljs-…">`, `</span>` and escaped
 * text. Each run of text is styled once, by its innermost themed scope (adjacent runs of one style together), so no
 * colour has to be restored after a nested one closes.
 */
export function ansiOfHighlighted(html: string): string {
  const scopes: (Style | undefined)[] = []
  let out = ''
  let run = { style: undefined as Style | undefined, text: '' }
  const flush = () => (out += run.style && run.text ? run.style(run.text) : run.text)
  for (const [token, scope] of html.matchAll(/<span class="hljs-([\w-]+)[^"]*">|<\/span>|[^<]+|</g)) {
    if (scope !== undefined) scopes.push(Object.hasOwn(THEME, scope) ? THEME[scope] : undefined)
    else if (token === '</span>') scopes.pop()
    else {
      const style = scopes.findLast((s) => s !== undefined)
      if (style !== run.style) {
        flush()
        run = { style, text: '' }
      }
      run.text += token.replace(/&(?:lt|gt|amp|quot|#x27);/g, (entity) => ENTITIES[entity])
    }
  }
  flush()
  return out
}
