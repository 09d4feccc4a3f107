import { readdir, stat } from 'node:fs/promises'
import path from 'node:path'
import { z } from 'zod'
import { leftOutNote, readGuardOf } from './read-guard.js'
import { displayPath, resolveToolPath } from './paths.js'
import type { Tool } from './tool.js'
import { counted } from '../text/count.js'
import { metaNumber, pathArg } from './display-args.js'

/** Entries one call lists at most. */
export const LS_MAX_ENTRIES = 500

const schema = z.object({
  path: z.string().optional(),
})

const description = 'List a directory (default: working directory). Directories end with /.'

type Args = z.infer<typeof schema>

export const lsTool: Tool<Args> = {
  name: 'ls',
  description,
  schema,
  readOnly: true,
  kind: 'read',
  category: 'read',
  peerNames: { claudeCode: 'LS' },
  target: { kind: 'path', argument: 'path' },
  display: {
    verb: 'List',
    subject: (args, cwd) => pathArg(args, cwd, 'path') ?? '.',
    summary: (result) => {
      const n = metaNumber(result, 'entries')
      return result.isError || n === undefined ? undefined : counted(n, 'entry', 'entries')
    },
  },
  async run(args, ctx) {
    const dir = resolveToolPath(ctx.cwd, args.path ?? '.')
    const shown = displayPath(ctx.cwd, dir)
    let entries
    try {
      entries = await readdir(dir, { withFileTypes: true })
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      const why = code === 'ENOTDIR' ? 'is a file; use read' : code === 'ENOENT' ? 'does not exist' : 'cannot be listed'
      return { content: [{ type: 'text', text: `Error: ${shown} ${why}.` }], isError: true }
    }
    const guard = readGuardOf(ctx.state)
    const listed = guard ? entries.filter((entry) => guard.refuses(path.join(dir, entry.name)) === undefined) : entries
    const leftOut = entries.length - listed.length
    const names = await Promise.all(
      listed.map(async (entry) => {
        if (entry.isDirectory()) return `${entry.name}/`
        if (entry.isSymbolicLink()) {
          const target = await stat(path.join(dir, entry.name)).catch(() => undefined)
          return target?.isDirectory() ? `${entry.name}/` : entry.name
        }
        return entry.name
      }),
    )
    names.sort()
    let text = names.length ? names.slice(0, LS_MAX_ENTRIES).join('\n') : leftOut ? '' : `(${shown} is empty)`
    if (names.length > LS_MAX_ENTRIES) text += `\n[${names.length} entries; showing the first ${LS_MAX_ENTRIES}. Use glob to narrow.]`
    if (leftOut) text = `${text ? `${text}\n` : ''}${leftOutNote(leftOut)}`
    return { content: [{ type: 'text', text }], meta: { path: dir, entries: names.length, leftOut } }
  },
}
