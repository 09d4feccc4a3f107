import type { Context, Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { z } from 'zod'
import { IMAGE_BYTE_CAP } from '../tools/read.js'
import { WebError } from './directories.js'
import {
  AttachmentRefusal,
  mentionedPaths,
  promptBlocks,
  uploadedAttachment,
  workspaceAttachment,
  workspaceFiles,
  workspaceGuard,
  type Attachment,
} from './attachment-files.js'
import type { LiveSession } from './live-session.js'
import { StagedAttachments } from './staged-attachments.js'
import type { WebContext } from './web-context.js'

const prompt = z
  .object({
    text: z.string().min(1, 'is empty').max(1_000_000, 'is over a million characters'),
    how: z.enum(['enter', 'steer', 'followUp']),
    attachments: z.array(z.string().regex(/^[0-9a-f-]{36}$/, 'is not an attachment id')).max(20).optional(),
  })
  .strict()

/** Most `@` completions one answer holds. */
const COMPLETIONS = 50

/** How long one workspace listing serves the completions typed after it (each key asks again). */
const LISTING_MS = 3000

/**
 * Attachments and `@`-mentions (docs/web.md, "Attachments and mentions"):
 * - `POST /api/sessions/:id/attachments?name=<file name>` with the file's bytes as the body stages an upload;
 * - `DELETE /api/sessions/:id/attachments/:att` takes one back;
 * - `GET /api/sessions/:id/files?q=` lists workspace files for `@` completion;
 * - `POST /api/sessions/:id/prompt {text, how, attachments?}` sends a prompt with the staged files and every
 *   workspace file an `@path` names, as the terminal UI sends its attachments. A mention that cannot be attached
 *   refuses the prompt in one sentence and sends nothing.
 */
export function attachmentRoutes(app: Hono, ctx: WebContext): void {
  const staged = new StagedAttachments()
  const listings = new Map<string, { at: number; files: Promise<string[]> }>()
  const listing = (cwd: string): Promise<string[]> => {
    const known = listings.get(cwd)
    if (known && Date.now() - known.at < LISTING_MS) return known.files
    const files = workspaceFiles(cwd, workspaceGuard(cwd, ctx.home))
    listings.set(cwd, { at: Date.now(), files })
    if (listings.size > 16) listings.delete(listings.keys().next().value as string)
    return files
  }
  const cwdOf = async (id: string): Promise<string> => (await ctx.reader.read(id)).header.cwd

  app.post(
    '/api/sessions/:id/attachments',
    bodyLimit({
      maxSize: IMAGE_BYTE_CAP,
      onError: (c) => c.json({ error: `That file is over ${IMAGE_BYTE_CAP / (1024 * 1024)} MiB, the most an attachment may hold.` }, 413),
    }),
    async (c) => {
      const id = await ctx.visibleId(c.req.param('id'))
      const bytes = Buffer.from(await c.req.arrayBuffer())
      const attachment = refusing(c, () => uploadedAttachment(c.req.query('name') ?? '', bytes, c.req.header('content-type')))
      if (attachment instanceof Response) return attachment
      const att = staged.add(id, attachment)
      return c.json({ id: att, ...described(attachment, bytes.length) }, 201)
    },
  )

  app.delete('/api/sessions/:id/attachments/:att', async (c) => {
    const id = await ctx.visibleId(c.req.param('id'))
    return c.json({ removed: staged.remove(id, c.req.param('att')) })
  })

  app.get('/api/sessions/:id/files', async (c) => {
    const id = await ctx.visibleId(c.req.param('id'))
    const cwd = await cwdOf(id)
    const query = (c.req.query('q') ?? '').toLowerCase()
    const files = await listing(cwd)
    const matching = files.filter((f) => f.toLowerCase().includes(query))
    return c.json({ files: matching.slice(0, COMPLETIONS), more: Math.max(0, matching.length - COMPLETIONS) })
  })

  app.post('/api/sessions/:id/prompt', async (c) => {
    let raw: unknown
    try {
      raw = await c.req.json()
    } catch {
      throw new WebError(400, 'The request body is not JSON.')
    }
    const checked = prompt.safeParse(raw)
    if (!checked.success) {
      throw new WebError(400, `Invalid request: ${checked.error.issues.map((i) => `${i.path.join('.') || 'body'} ${i.message}`).join('; ')}.`)
    }
    const input = checked.data
    const id = await ctx.visibleId(c.req.param('id'))
    const cwd = await cwdOf(id)
    const guard = workspaceGuard(cwd, ctx.home)
    const mentioned = refusing(c, () => mentionedPaths(input.text).flatMap((path) => workspaceAttachment(cwd, path, guard) ?? []))
    if (mentioned instanceof Response) return mentioned
    const session: LiveSession = ctx.host.get(id) ?? (await ctx.host.resume(id, cwd))
    const taken = staged.take(id, input.attachments ?? [])
    if ('missing' in taken) throw new WebError(409, 'An attached file is no longer staged (sent already, or the server restarted); attach it again.')
    const attachments: Attachment[] = [...taken.attachments, ...mentioned]
    const agent = session.opened.agent
    const how = input.how === 'enter' ? (agent.busy ? 'steer' : 'followUp') : input.how
    const content = attachments.length ? promptBlocks(input.text, attachments) : input.text
    const messageId = how === 'steer' ? agent.steer(content) : agent.followUp(content)
    session.sendState()
    return c.json({ messageId, delivered: how, attached: attachments.map((a) => a.name) })
  })
}

/** What the page shows of a staged file. */
function described(a: Attachment, bytes: number): { name: string; kind: 'image' | 'text'; mimeType?: string; bytes: number } {
  return { name: a.name, kind: a.kind, ...(a.kind === 'image' ? { mimeType: a.mimeType } : {}), bytes }
}

/** `make()`, or the JSON answer of the refusal it threw. */
function refusing<T>(c: Context, make: () => T): T | Response {
  try {
    return make()
  } catch (error) {
    if (error instanceof AttachmentRefusal) return c.json({ error: error.message }, error.status)
    throw error
  }
}
