import { stat } from 'node:fs/promises'
import path from 'node:path'
import { z } from 'zod'
import { leftOutNote, readGuardOf } from './read-guard.js'
import { displayPath, resolveToolPath } from './paths.js'
import type { Tool } from './tool.js'
import { counted } from '../text/count.js'
import { metaNumber, pathArg, stringArg } from './display-args.js'

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
  display: {
    verb: 'Find',
    subject: (args, cwd) => {
      const pattern = stringArg(args, 'pattern')
      const where = pathArg(args, cwd, 'path')
      return pattern === undefined ? undefined : `${pattern}${where === undefined ? '' : ` in ${where}`}`
    },
    summary: (result) => {
      const n = metaNumber(result, 'matched')
      return result.isError || n === undefined ? undefined : counted(n, 'file')
    },
  },
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
    // Dating every match costs one stat each (2.2 s for 50K matches, issue 36), so only a list that is shown whole is
    // dated and sorted newest first; a longer one is cut to its first matches by path, which costs no stat at all.
    const many = allowed.length > GLOB_MAX_RESULTS
    const listed = many ? allowed.sort().slice(0, GLOB_MAX_RESULTS) : await newestFirst(allowed)
    const shown = listed.map((file) => displayPath(ctx.cwd, path.normalize(file)))
    let text = shown.length ? shown.join('\n') : 'No files matched.'
    if (leftOut) text += `\n${leftOutNote(leftOut)}`
    if (many) {
      text += `\n[${allowed.length} files matched; showing the first ${GLOB_MAX_RESULTS} by path. Narrow the pattern or path.]`
    }
    return { content: [{ type: 'text', text }], meta: { matched: allowed.length, leftOut } }
  },
}

async function newestFirst(files: string[]): Promise<string[]> {
  const dated = await Promise.all(
    files.map(async (file) => {
      try {
        return { file, mtime: (await stat(file)).mtimeMs }
      } catch {
        return { file, mtime: 0 } // Vanished since the walk: listed last.
      }
    }),
  )
  dated.sort((a, b) => b.mtime - a.mtime || (a.file < b.file ? -1 : 1))
  return dated.map((d) => d.file)
}
