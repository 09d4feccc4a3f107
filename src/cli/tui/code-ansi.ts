import { bold, italic, underline } from './ansi.js'
import { paint, theme, type Theme } from './theme.js'

/**
 * The terminal colours of highlight.js scopes (the part after `hljs-` of a class name), from the theme in use
 * (theme.ts). A scope not listed takes the colour of the scope around it; text in no listed scope stays plain.
 */
type Style = (text: string) => string

function scopesOf(t: Theme): Record<string, Style> {
  // One style per colour, so adjacent runs of one colour are recognised as one run.
  const styles = new Map<string, Style>()
  const c = (colour: string): Style => {
    let style = styles.get(colour)
    if (!style) styles.set(colour, (style = (text) => paint(colour, text)))
    return style
  }
  const { keyword, type, literal, string, title, comment } = t.code
  return {
    keyword: c(keyword),
    'selector-tag': c(keyword),
    built_in: c(type),
    type: c(type),
    attr: c(type),
    attribute: c(type),
    property: c(type),
    literal: c(literal),
    number: c(literal),
    string: c(string),
    regexp: c(string),
    'template-tag': c(string),
    title: c(title),
    name: c(title),
    tag: c(title),
    section: bold,
    comment: c(comment),
    quote: c(comment),
    meta: c(comment),
    doctag: c(comment),
    addition: c(t.added),
    deletion: c(t.removed),
    link: underline,
    emphasis: italic,
    strong: bold,
  }
}

const scopeCache = new Map<Theme, Record<string, Style>>()

/** The scope styles of the theme in use. */
function themeScopes(): Record<string, Style> {
  const t = theme()
  let scopes = scopeCache.get(t)
  if (!scopes) scopeCache.set(t, (scopes = scopesOf(t)))
  return scopes
}

/** highlight.js escapes exactly these five characters in text. */
const ENTITIES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&amp;': '&', '&quot;': '"', '&#x27;': "'" }

/**
 * The SGR-styled text of highlight.js's HTML output, which holds only `<span class="hljs-…">`, `</span>` and escaped
 * text. Each run of text is styled once, by its innermost themed scope (adjacent runs of one style together), so no
 * colour has to be restored after a nested one closes.
 */
export function ansiOfHighlighted(html: string): string {
  const THEME = themeScopes()
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
