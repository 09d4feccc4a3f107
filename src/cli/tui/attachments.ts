import type { InputBlock } from '../../llm/messages.js'
import { ATTACHED_HEADING } from '../../frontend/typed-text.js'

export { ATTACHED_HEADING }

/** A file an `@path` in a prompt attaches, read with the read tool's checks (attach-file.ts), or why it is not. */
export type Attachment =
  | { kind: 'text'; path: string; text: string }
  | { kind: 'image'; path: string; mimeType: string; data: string }
  | { kind: 'skipped'; path: string; reason: string }
  /** No such file: the `@` named something else (a person, a package), so the text goes as typed. */
  | { kind: 'absent'; path: string }


const IMAGE_EXTENSIONS = /\.(png|jpe?g|gif|webp)$/i

/**
 * The paths a prompt may attach, in order, each once: every `@path` (a workspace file the completion offered, or any
 * path; one that names no file attaches nothing), and every absolute path of an image (what a terminal pastes when an
 * image file is dropped on it), with or without the `@`.
 */
export function mentionedFiles(text: string, files: ReadonlySet<string>): string[] {
  const found: string[] = []
  for (const match of text.matchAll(/(?:^|\s)(@?)(\S+)/g)) {
    const raw = match[2]
    const path = files.has(raw) ? raw : raw.replace(/[.,;:!?)]+$/, '')
    const wanted = (match[1] === '@' && path !== '') || (path.startsWith('/') && IMAGE_EXTENSIONS.test(path))
    if (wanted && !found.includes(path)) found.push(path)
  }
  return found
}

/** What the `@` completion says a file will become. */
export function attachmentKind(path: string): string {
  return IMAGE_EXTENSIONS.test(path) ? 'attaches the image' : 'attaches the file'
}

/**
 * The prompt as content blocks: the text as typed, then one block per attached file — a text file as a text block
 * under `ATTACHED_HEADING`, an image as an image block after a line naming it. Skipped files add nothing.
 */
export function promptContent(text: string, attachments: readonly Attachment[]): InputBlock[] {
  const blocks: InputBlock[] = [{ type: 'text', text }]
  for (const a of attachments) {
    if (a.kind === 'text') blocks.push({ type: 'text', text: `${ATTACHED_HEADING}${a.path}:\n${a.text}` })
    else if (a.kind === 'image') {
      blocks.push({ type: 'text', text: `${ATTACHED_HEADING}${a.path} (${a.mimeType}):` })
      blocks.push({ type: 'image', mimeType: a.mimeType, data: a.data })
    }
  }
  return blocks
}
