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
  },
})

export function markdownHtml(text: string): string {
  return marked.parse(text, { async: false })
}
