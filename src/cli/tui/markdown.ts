import { Lexer, type Token, type Tokens } from 'marked'
import { bold, dim, italic, strike, underline } from './ansi.js'
import { highlightCode } from './code-highlight.js'
import { layoutTable, type ColumnAlign } from './markdown-table.js'
import { paint, theme } from './theme.js'

/** Columns a table is laid out to when the caller names no width. */
const DEFAULT_WIDTH = 80

/**
 * Renders model Markdown as terminal text with SGR styles. Hand-written over `marked`'s lexer because the terminal
 * needs different output than HTML: code blocks highlighted and indented, lists with bullets, links as text plus the
 * address. Never throws: text the lexer cannot structure is printed as it is.
 */
export function renderMarkdown(source: string, options: { width?: number } = {}): string {
  try {
    const tokens = new Lexer({ gfm: true }).lex(source)
    width = options.width ?? DEFAULT_WIDTH
    return blocks(tokens, '').replace(/\n{3,}/g, '\n\n').replace(/\n+$/, '')
  } catch {
    // A lexer failure on odd input must not lose the model's answer; the raw text is still readable.
    return source
  }
}

/** The terminal width of the render in progress (rendering is synchronous, so one module variable serves). */
let width = DEFAULT_WIDTH

function blocks(tokens: readonly Token[], indent: string): string {
  return tokens.map((t) => block(t, indent)).join('')
}

function block(token: Token, indent: string): string {
  switch (token.type) {
    case 'heading': {
      const t = token as Tokens.Heading
      const text = bold(inline(t.tokens))
      return `${indent}${t.depth === 1 ? underline(text) : text}\n\n`
    }
    case 'paragraph':
      return `${indentLines(inline((token as Tokens.Paragraph).tokens), indent)}\n\n`
    case 'text': {
      const t = token as Tokens.Text
      return `${indentLines(t.tokens ? inline(t.tokens) : t.text, indent)}\n`
    }
    case 'code':
      return `${codeBlock(token as Tokens.Code, indent)}\n\n`
    case 'list':
      return `${list(token as Tokens.List, indent)}\n`
    case 'blockquote': {
      const inner = blocks((token as Tokens.Blockquote).tokens, '').replace(/\n+$/, '')
      return `${inner
        .split('\n')
        .map((l) => `${indent}${dim('│')} ${l}`)
        .join('\n')}\n\n`
    }
    case 'hr':
      return `${indent}${dim('─'.repeat(40))}\n\n`
    case 'table':
      return `${table(token as Tokens.Table, indent)}\n\n`
    case 'space':
      return '\n'
    case 'html':
      return `${indentLines((token as Tokens.HTML).text.replace(/\n+$/, ''), indent)}\n`
    default:
      return 'raw' in token && typeof token.raw === 'string' ? token.raw : ''
  }
}

function codeBlock(token: Tokens.Code, indent: string): string {
  const language = token.lang?.split(/\s/)[0]
  const body = (language ? highlightCode(token.text, language) : undefined) ?? token.text
  const label = token.lang ? `${indent}${dim(token.lang)}\n` : ''
  return label + indentLines(body, `${indent}  `)
}

function list(token: Tokens.List, indent: string): string {
  const start = typeof token.start === 'number' ? token.start : 1
  return token.items
    .map((item, i) => {
      const marker = token.ordered ? `${start + i}.` : '•'
      const check = item.task ? (item.checked ? '[x] ' : '[ ] ') : ''
      const body = blocks(item.tokens, '').replace(/\n+$/, '')
      const pad = ' '.repeat(marker.length + 1)
      const [first, ...rest] = body.split('\n')
      return [`${indent}${marker} ${check}${first}`, ...rest.map((l) => (l ? `${indent}${pad}${l}` : l))].join('\n')
    })
    .join('\n')
}

function table(token: Tokens.Table, indent: string): string {
  const header = token.header.map((c) => bold(inline(c.tokens)))
  const rows = token.rows.map((r) => r.map((c) => inline(c.tokens)))
  return layoutTable(header, rows, { align: token.align as ColumnAlign[], width, indent, paint: dim })
}

function inline(tokens: readonly Token[] | undefined): string {
  if (!tokens) return ''
  return tokens
    .map((token) => {
      switch (token.type) {
        case 'strong':
          return bold(inline((token as Tokens.Strong).tokens))
        case 'em':
          return italic(inline((token as Tokens.Em).tokens))
        case 'del':
          return strike(inline((token as Tokens.Del).tokens))
        case 'codespan':
          return paint(theme().accent, decode((token as Tokens.Codespan).text))
        case 'link': {
          const t = token as Tokens.Link
          const text = inline(t.tokens)
          return text === t.href ? underline(t.href) : `${text} ${dim(`(${underline(t.href)})`)}`
        }
        case 'image':
          return paint(theme().warn, `[image: ${(token as Tokens.Image).text}]`)
        case 'br':
          return '\n'
        case 'text': {
          const t = token as Tokens.Text
          return t.tokens ? inline(t.tokens) : decode(t.text)
        }
        case 'escape':
          return (token as Tokens.Escape).text
        default:
          return 'raw' in token && typeof token.raw === 'string' ? token.raw : ''
      }
    })
    .join('')
}

/** marked escapes these in text tokens; the terminal wants the characters back. */
function decode(text: string): string {
  return text
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
}

function indentLines(text: string, indent: string): string {
  return indent ? text.split('\n').map((l) => indent + l).join('\n') : text
}
