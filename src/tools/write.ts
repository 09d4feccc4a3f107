import { readFile, stat } from 'node:fs/promises'
import { z } from 'zod'
import { writeFileAtomic } from './atomic-write.js'
import { unifiedDiff } from './diff-meta.js'
import { checkFresh, freshnessError, hashBytes, recordVersion } from './file-versions.js'
import { displayPath, realPathOf, resolveToolPath } from './paths.js'
import type { Tool, ToolOutput } from './tool.js'

const schema = z.object({
  file_path: z.string().describe('Absolute, or relative to the working directory'),
  content: z.string().describe('The whole new content'),
})

const description =
  'Create a file or replace all of it. An existing file must be read first. Prefer edit for changes to part of a file.'

type Args = z.infer<typeof schema>

export const writeTool: Tool<Args> = {
  name: 'write',
  description,
  schema,
  readOnly: false,
  kind: 'edit',
  async run(args, ctx) {
    const named = resolveToolPath(ctx.cwd, args.file_path)
    const shown = displayPath(ctx.cwd, named)
    // A symlink is written through: the link stays and its target changes, which is also what the boundary checks.
    const absolute = realPathOf(named)
    let before = ''
    let exists = false
    try {
      const info = await stat(absolute)
      if (info.isDirectory()) return fail(`Error: ${shown} is a directory; give a file path.`)
      exists = true
    } catch {
      exists = false
    }
    if (exists) {
      const fresh = await checkFresh(ctx.state, absolute)
      if (!fresh.ok) return fail(freshnessError(shown, fresh.reason))
      before = await readFile(absolute, 'utf8')
    }
    try {
      await writeFileAtomic(absolute, args.content)
    } catch (error) {
      return fail(`Error: could not write ${shown}: ${(error as Error).message}.`)
    }
    await recordVersion(ctx.state, absolute, hashBytes(args.content))
    const lines = args.content === '' ? 0 : args.content.split('\n').length - (args.content.endsWith('\n') ? 1 : 0)
    const diff = await unifiedDiff(shown, before, args.content)
    return {
      content: [{ type: 'text', text: `${exists ? 'Replaced' : 'Created'} ${shown} (${lines} lines).` }],
      meta: { path: absolute, created: !exists, ...(diff !== undefined ? { diff } : { diffOmitted: true }) },
    }
  },
}

const fail = (text: string): ToolOutput => ({ content: [{ type: 'text', text }], isError: true })
