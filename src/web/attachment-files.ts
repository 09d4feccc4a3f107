import { homedir } from 'node:os'
import { join } from 'node:path'
import { readFileSync } from 'node:fs'
import ignore from 'ignore'
import { glob } from 'tinyglobby'
import { settingsReadGuard } from '../config/read-guard.js'
import { readGated } from '../fs/read-gate.js'
import type { InputBlock } from '../llm/messages.js'
import { ATTACHED_HEADING } from '../frontend/typed-text.js'
import { IMAGE_BYTE_CAP, imageType, READ_BYTE_CAP } from '../tools/read.js'
import type { ReadGuard } from '../tools/read-guard.js'
import { resolveToolPath } from '../tools/paths.js'

/**
 * What the page attaches to a prompt, checked as the `read` tool checks a file: an uploaded file (its type sniffed
 * from its bytes) or a workspace file an `@path` names (read through the read gate with the `Read` deny rules). Both
 * become the content blocks the terminal UI sends for its attachments: the text under `ATTACHED_HEADING`, an image
 * as an image block after a line naming it.
 */
export type Attachment = { kind: 'text'; name: string; text: string } | { kind: 'image'; name: string; mimeType: string; data: string }

/** An upload or a mention that cannot be attached: one sentence, and the HTTP status saying why. */
export class AttachmentRefusal extends Error {
  constructor(
    readonly status: 400 | 403 | 413 | 415,
    message: string,
  ) {
    super(message)
  }
}

/** The read guard of a workspace: its settings' `Read` deny rules and Rein's home, as the terminal UI's `@path` uses. */
export function workspaceGuard(cwd: string, reinHome: string): ReadGuard {
  return settingsReadGuard({ cwd, reinHome, userHome: homedir() })
}

/**
 * An uploaded file as an attachment. `name` is a label only (never a path on disk): anything with a folder in it is
 * refused. The type comes from the bytes: a PNG, JPEG, GIF or WebP image up to 5 MiB, else UTF-8 text up to 256 KiB
 * (the read tool's limits); `claimed` (the browser's type) only makes a non-image that claims to be one a refusal.
 */
export function uploadedAttachment(name: string, bytes: Buffer, claimed: string | undefined): Attachment {
  const label = fileLabel(name)
  const mimeType = imageType(bytes.subarray(0, 16))
  if (mimeType) {
    if (bytes.length > IMAGE_BYTE_CAP) throw new AttachmentRefusal(413, `${label} is an image of ${bytes.length} bytes, over the ${IMAGE_BYTE_CAP}-byte limit for images.`)
    return { kind: 'image', name: label, mimeType, data: bytes.toString('base64') }
  }
  if (claimed?.toLowerCase().startsWith('image/')) {
    throw new AttachmentRefusal(415, `${label} claims to be ${claimed}, but its bytes are not a PNG, JPEG, GIF or WebP image.`)
  }
  return textAttachment(label, label, bytes)
}

function textAttachment(name: string, label: string, bytes: Buffer): Attachment {
  if (bytes.includes(0)) throw new AttachmentRefusal(415, `${label} is a binary file; only images and text files can be attached.`)
  if (bytes.length > READ_BYTE_CAP) {
    throw new AttachmentRefusal(413, `${label} is over ${READ_BYTE_CAP / 1024} KiB; ask the agent to read it in parts instead.`)
  }
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw new AttachmentRefusal(415, `${label} is not UTF-8 text; only images and text files can be attached.`)
  }
  return { kind: 'text', name, text }
}

/** A file name as sent, refused when it names a folder, a parent, a control character or nothing. */
export function fileLabel(name: string): string {
  const trimmed = name.trim()
  if (!trimmed || trimmed.length > 255) throw new AttachmentRefusal(400, 'Give the attached file a name of 1 to 255 characters.')
  if (/[/\\\u0000-\u001f\u007f]/.test(trimmed) || trimmed === '.' || trimmed === '..') {
    throw new AttachmentRefusal(400, `The file name ${JSON.stringify(trimmed)} holds a path or a control character; an attachment is named by its file name alone.`)
  }
  return trimmed
}

/**
 * The workspace file `path` (relative to `cwd`) as an attachment, through the read gate: a regular file whose real
 * path lies inside `cwd`, not refused by `guard`, read without following a final link, at most 5 MiB (an image) or
 * 256 KiB (text). Undefined when no such file exists (the `@` named something else and the text goes as typed).
 */
export function workspaceAttachment(cwd: string, path: string, guard: ReadGuard): Attachment | undefined {
  const file = readGated(resolveToolPath(cwd, path), { folder: { dir: cwd, base: cwd }, refuses: guard.refuses, maxBytes: IMAGE_BYTE_CAP })
  if (file.kind === 'absent') return undefined
  if (file.kind === 'skipped') throw new AttachmentRefusal(403, `@${path} cannot be attached: ${file.reason}.`)
  const mimeType = imageType(file.bytes.subarray(0, 16))
  if (mimeType) return { kind: 'image', name: path, mimeType, data: file.bytes.toString('base64') }
  return textAttachment(path, `@${path}`, file.bytes)
}

/** Every `@path` of a prompt, in order, each once; trailing punctuation is not part of the path. */
export function mentionedPaths(text: string): string[] {
  const found: string[] = []
  for (const match of text.matchAll(/(?:^|\s)@(\S+)/g)) {
    const path = match[1].replace(/[.,;:!?)]+$/, '')
    if (path && !found.includes(path)) found.push(path)
  }
  return found
}

/** The prompt as content blocks: the text as typed, then each attachment as the terminal UI sends it. */
export function promptBlocks(text: string, attachments: readonly Attachment[]): InputBlock[] {
  const blocks: InputBlock[] = [{ type: 'text', text }]
  for (const a of attachments) {
    if (a.kind === 'text') blocks.push({ type: 'text', text: `${ATTACHED_HEADING}${a.name}:\n${a.text}` })
    else {
      blocks.push({ type: 'text', text: `${ATTACHED_HEADING}${a.name} (${a.mimeType}):` })
      blocks.push({ type: 'image', mimeType: a.mimeType, data: a.data })
    }
  }
  return blocks
}

/** Most files one listing for `@` completion scans: completion must stay instant on a large tree. */
export const LISTED_FILES = 20_000

/**
 * Workspace files for `@` completion, relative to `cwd`: not ignored by the root `.gitignore`, never in `.git` or
 * `node_modules`, and none the read guard refuses (a `Read` deny rule, Rein's home).
 */
export async function workspaceFiles(cwd: string, guard: ReadGuard): Promise<string[]> {
  const files = await glob('**/*', { cwd, ignore: ['**/node_modules/**', '**/.git/**'], dot: true, onlyFiles: true })
  let rules = ignore()
  try {
    rules = rules.add(readFileSync(join(cwd, '.gitignore'), 'utf8'))
  } catch {
    // No .gitignore: nothing more to leave out.
  }
  return rules
    .filter(files)
    .filter((f) => guard.refuses(join(cwd, f)) === undefined)
    .sort()
    .slice(0, LISTED_FILES)
}
