import { Marked } from 'marked'

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": '#39' }[c]};`)
}

/**
 * Markdown as HTML for text the model or a tool wrote. Raw HTML in the text is shown as text, never parsed, and a
 * link or image keeps only an http(s) or mailto address: the page must not run or load what a model wrote. (The
 * Content-Security-Policy forbids inline script too; this keeps markup out in the first place.)
 */
const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    html({ text }) {
      return escapeHtml(text)
    },
    link({ href, title, tokens }) {
      const label = this.parser.parseInline(tokens)
      if (!/^(https?:|mailto:)/i.test(href)) return label
      return `<a href="${escapeHtml(href)}" rel="noopener noreferrer" target="_blank"${title ? ` title="${escapeHtml(title)}"` : ''}>${label}</a>`
    },
    image({ text }) {
      return escapeHtml(`[image: ${text}]`)
    },
    // A code block carries its copy button (copy.ts handles its click for every block on the page).
    code({ text, lang }) {
      const language = lang && /^[\w+#.-]{1,30}$/.test(lang) ? ` class="language-${lang}"` : ''
      return `<div class="code"><button type="button" class="copy" data-copy-code>Copy</button><pre><code${language}>${escapeHtml(text)}</code></pre></div>`
    },
  },
})

export function markdownHtml(text: string): string {
  return marked.parse(text, { async: false })
}

/** The streaming entry's rendered blocks so far, by entry key: only the blocks after them are parsed on a delta. */
const streamed = new Map<string, { stable: string; html: string }>()

/**
 * Where the text's finished blocks end: after the last blank line that lies outside a code fence. What follows may
 * still grow into something else (a paragraph into a list, an open fence), so only it is parsed again on each delta.
 */
export function stableEnd(text: string): number {
  let end = 0
  let fence: string | undefined
  let at = 0
  for (const line of text.split('\n')) {
    const next = at + line.length + 1
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1]
    if (marker && (!fence || (marker[0] === fence[0] && marker.length >= fence.length))) fence = fence ? undefined : marker
    else if (!fence && line.trim() === '' && next <= text.length) end = next
    at = next
  }
  return end
}

/**
 * Markdown as HTML for text still streaming in, rendered incrementally: the finished blocks once, the growing tail on
 * every call. Blocks split at blank lines outside fences render as the whole text does (markdownHtml), so the entry
 * does not change its layout when the committed message replaces it.
 */
export function streamingMarkdownHtml(key: string, text: string): string {
  const end = stableEnd(text)
  let cached = streamed.get(key)
  if (!cached || !text.startsWith(cached.stable)) cached = { stable: '', html: '' }
  if (end > cached.stable.length) cached = { stable: text.slice(0, end), html: cached.html + markdownHtml(text.slice(cached.stable.length, end)) }
  // One streaming entry at a time: an entry that is not this one has ended.
  if (!streamed.has(key)) streamed.clear()
  streamed.set(key, cached)
  return cached.html + markdownHtml(text.slice(cached.stable.length))
}
