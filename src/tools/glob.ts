import { stat } from 'node:fs/promises'
import path from 'node:path'
import { z } from 'zod'
import { leftOutNote, readGuardOf } from './read-guard.js'
import { displayPath, resolveToolPath } from './paths.js'
import type { Tool } from './tool.js'

/** Paths one call returns at most. */
export const GLOB_MAX_RESULTS = 200

const schema = z.object({
  pattern: z.string(),
  path: z.string().optional(),
})

const description = 'Find files by glob pattern (e.g. src/**/*.ts), newest first.'

type Args = z.infer<typeof schema>

export const globTool: Tool<Args> = {
  name: 'glob',
  description,
  schema,
  readOnly: true,
  kind: 'search',
  category: 'read',
  peerNames: { claudeCode: 'Glob' },
  target: { kind: 'path', argument: 'path' },
  async run(args, ctx) {
    const base = resolveToolPath(ctx.cwd, args.path ?? '.')
    try {
      if (!(await stat(base)).isDirectory()) throw new Error('not a directory')
    } catch {
      return {
        content: [{ type: 'text', text: `Error: ${displayPath(ctx.cwd, base)} is not a directory; give a directory as path.` }],
        isError: true,
      }
    }
    const { glob } = await import('tinyglobby')
    const found = await glob(args.pattern, {
      cwd: base,
      absolute: true,
      dot: true,
      onlyFiles: true,
      ignore: ['**/.git/**', '**/node_modules/**'],
    })
    const guard = readGuardOf(ctx.state)
    const allowed = guard ? found.filter((file) => guard.refuses(path.normalize(file)) === undefined) : found
    const leftOut = found.length - allowed.length
    const dated = await Promise.all(
      allowed.map(async (file) => {
        try {
          return { file, mtime: (await stat(file)).mtimeMs }
        } catch {
          return { file, mtime: 0 } // Vanished since the walk: listed last.
        }
      }),
    )
    dated.sort((a, b) => b.mtime - a.mtime || (a.file < b.file ? -1 : 1))
    const shown = dated.slice(0, GLOB_MAX_RESULTS).map((d) => displayPath(ctx.cwd, path.normalize(d.file)))
    let text = shown.length ? shown.join('\n') : 'No files matched.'
    if (leftOut) text += `\n${leftOutNote(leftOut)}`
    if (dated.length > GLOB_MAX_RESULTS) {
      text += `\n[${dated.length} files matched; showing the ${GLOB_MAX_RESULTS} newest. Narrow the pattern or path.]`
    }
    return { content: [{ type: 'text', text }], meta: { matched: dated.length, leftOut } }
  },
}
