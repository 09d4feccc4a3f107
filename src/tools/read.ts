import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { open, readFile, stat } from 'node:fs/promises'
import { z } from 'zod'
import type { InputBlock } from '../llm/messages.js'
import { hashBytes } from './file-versions.js'
import { readGuardOf } from './read-guard.js'
import { fileTarget } from './paths.js'
import { unseenImage } from './read-image.js'
import { errorOutput, type Tool, type ToolOutput, type ToolState } from './tool.js'
import { counted } from '../text/count.js'
import { metaNumber, pathArg } from './display-args.js'

export const MAX_LINES = 2000
export const MAX_LINE_CHARS = 2000
/** Bytes of numbered text one call returns at most; the footer says where to continue. */
export const READ_BYTE_CAP = 256 * 1024
/** Images larger than this are refused rather than sent as a block. */
export const IMAGE_BYTE_CAP = 5 * 1024 * 1024
/** Bytes kept of one line while streaming; a line longer than this is cut, however long it is on disk. */
const LINE_BYTE_CAP = MAX_LINE_CHARS * 4

const schema = z.object({
  file_path: z.string(),
  offset: z.number().int().min(1).optional(),
  limit: z.number().int().min(1).max(MAX_LINES).optional(),
})

const description =
  `Read a file as numbered lines: up to ${MAX_LINES} from line offset (1-based). Images come back as images.`

type Args = z.infer<typeof schema>

export const readTool: Tool<Args> = {
  name: 'read',
  description,
  schema,
  readOnly: true,
  kind: 'read',
  category: 'read',
  peerNames: { claudeCode: 'Read' },
  target: { kind: 'file', argument: 'file_path' },
  display: {
    verb: 'Read',
    subject: (args, cwd) => pathArg(args, cwd, 'file_path'),
    summary: (result) => {
      const lines = metaNumber(result, 'lines')
      return result.isError || lines === undefined ? undefined : counted(lines, 'line')
    },
  },
  async run(args, ctx) {
    // Versions are keyed by the real path, the one write and edit touch, so reading through a symlink counts.
    const { shown, absolute } = fileTarget(ctx.cwd, args.file_path)
    const refused = readGuardOf(ctx.state)?.refuses(absolute)
    if (refused) return errorOutput(`Error: ${shown} may not be read: ${refused}. Do not retry it; ask the user.`)
    let info
    try {
      info = await stat(absolute)
    } catch {
      return fail(`Error: ${shown} does not exist; check the path with ls or glob.`)
    }
    if (info.isDirectory()) return fail(`Error: ${shown} is a directory; use ls to list it.`)
    if (!info.isFile()) return fail(`Error: ${shown} is not a regular file.`)

    const head = await sniff(absolute)
    const image = imageType(head)
    if (image) return unseenImage(ctx.state, absolute, shown, image, info.size) ?? readImage(ctx.state, absolute, shown, image, info.size)
    if (head.includes(0)) {
      return fail(`Error: ${shown} is a binary file (${counted(info.size, 'byte')}); read only text files, or inspect it with bash.`)
    }
    return readLines(ctx.state, absolute, shown, args.offset ?? 1, args.limit ?? MAX_LINES, info)
  },
}

const fail = errorOutput

async function sniff(file: string): Promise<Buffer> {
  const handle = await open(file, 'r')
  try {
    const buffer = Buffer.alloc(8192)
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0)
    return buffer.subarray(0, bytesRead)
  } finally {
    await handle.close()
  }
}

/** The image type a file's first bytes name (PNG, JPEG, GIF, WebP), or undefined. */
export function imageType(head: Buffer): string | undefined {
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png'
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg'
  if (head.subarray(0, 4).toString('latin1') === 'GIF8') return 'image/gif'
  if (head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP') {
    return 'image/webp'
  }
  return undefined
}

async function readImage(state: ToolState, absolute: string, shown: string, mimeType: string, size: number) {
  if (size > IMAGE_BYTE_CAP) {
    return fail(`Error: ${shown} is an image of ${counted(size, 'byte')}, over the ${IMAGE_BYTE_CAP}-byte limit for images.`)
  }
  const before = await stat(absolute)
  const bytes = await readFile(absolute)
  state.files.set(absolute, { mtimeMs: before.mtimeMs, size: bytes.length, sha256: hashBytes(bytes) })
  const content: InputBlock[] = [
    { type: 'text', text: `Image ${shown} (${mimeType}, ${counted(size, 'byte')}), attached as an image block.` },
    { type: 'image', mimeType, data: bytes.toString('base64') },
  ]
  return { content, meta: { path: absolute, image: mimeType } }
}

/**
 * Streams the file once: every byte feeds the hash (the version recorded for later writes), the requested lines are
 * formatted until the line or byte budget runs out, and the rest is only counted. Memory stays bounded by the
 * budget whatever the file's size or line length.
 */
async function readLines(
  state: ToolState,
  absolute: string,
  shown: string,
  offset: number,
  limit: number,
  before: { mtimeMs: number; size: number },
): Promise<ToolOutput> {
  const digest = createHash('sha256')
  const out: string[] = []
  let outBytes = 0
  let lineNo = 0
  let lastShown = 0
  let budgetHit = false
  let current: Buffer[] = []
  let currentBytes = 0
  let sinceNewline = 0

  const endLine = () => {
    lineNo++
    if (!budgetHit && lineNo >= offset && lineNo < offset + limit) {
      const raw = Buffer.concat(current).toString('utf8').replace(/\r$/, '')
      const cut = raw.length > MAX_LINE_CHARS || sinceNewline > LINE_BYTE_CAP
      const text = cut ? `${raw.slice(0, MAX_LINE_CHARS)}… [line cut]` : raw
      const formatted = `${String(lineNo).padStart(6)}\t${text}`
      const bytes = Buffer.byteLength(formatted) + 1
      if (outBytes + bytes > READ_BYTE_CAP && out.length > 0) {
        budgetHit = true
      } else {
        out.push(formatted)
        outBytes += bytes
        lastShown = lineNo
      }
    }
    current = []
    currentBytes = 0
    sinceNewline = 0
  }
  const append = (piece: Buffer) => {
    sinceNewline += piece.length
    if (currentBytes < LINE_BYTE_CAP && piece.length > 0) {
      const kept = piece.subarray(0, LINE_BYTE_CAP - currentBytes)
      current.push(Buffer.from(kept))
      currentBytes += kept.length
    }
  }

  for await (const chunk of createReadStream(absolute, { highWaterMark: 1 << 20 })) {
    const buffer = chunk as Buffer
    digest.update(buffer)
    let pos = 0
    for (let nl = buffer.indexOf(10, pos); nl !== -1; nl = buffer.indexOf(10, pos)) {
      append(buffer.subarray(pos, nl))
      endLine()
      pos = nl + 1
    }
    append(buffer.subarray(pos))
  }
  if (sinceNewline > 0) endLine()
  const total = lineNo
  state.files.set(absolute, { mtimeMs: before.mtimeMs, size: before.size, sha256: digest.digest('hex') })

  if (total === 0) return { content: [{ type: 'text', text: `(${shown} is empty)` }], meta: { path: absolute, lines: 0 } }
  if (offset > total) return fail(`Error: offset ${offset} is past the end of ${shown}, which has ${counted(total, 'line')}.`)
  let text = out.join('\n')
  if (lastShown < total) {
    const why = budgetHit ? `the ${READ_BYTE_CAP / 1024} KiB limit per read` : 'the line limit'
    text += `\n[Showed lines ${offset}-${lastShown} of ${total} (${why}). Continue with offset=${lastShown + 1}.]`
  }
  return { content: [{ type: 'text', text }], meta: { path: absolute, lines: total } }
}
