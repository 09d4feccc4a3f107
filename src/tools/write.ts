import { readFile, stat } from 'node:fs/promises'
import { z } from 'zod'
import { unifiedDiff } from './diff-meta.js'
import { checkFresh, freshnessError, writeTracked } from './file-versions.js'
import { fileTarget } from './paths.js'
import { errorOutput, type Tool } from './tool.js'
import { counted } from '../text/count.js'
import { currentText, metaString, pathArg, stringArg } from './display-args.js'

const schema = z.object({
  file_path: z.string(),
  content: z.string(),
})

const description =
  'Create or overwrite a whole file. Use edit to change part of one.'

type Args = z.infer<typeof schema>

export const writeTool: Tool<Args> = {
  name: 'write',
  description,
  schema,
  readOnly: false,
  kind: 'edit',
  category: 'edit',
  peerNames: { claudeCode: 'Write', codex: 'apply_patch' },
  target: { kind: 'file', argument: 'file_path' },
  display: {
    verb: 'Write',
    subject: (args, cwd) => pathArg(args, cwd, 'file_path'),
    summary: (result) => (result.isError ? undefined : result.meta && typeof result.meta === 'object' && !Array.isArray(result.meta) && result.meta.created === true ? 'created' : 'replaced'),
    diff: (result) => metaString(result, 'diff'),
    async proposed(args, cwd) {
      const file = stringArg(args, 'file_path')
      if (file === undefined || typeof args.content !== 'string') return undefined
      const { absolute } = fileTarget(cwd, file)
      return { path: absolute, before: await currentText(absolute), after: args.content }
    },
  },
  async run(args, ctx) {
    // A symlink is written through: the link stays and its target changes, which is also what the boundary checks.
    const { shown, absolute } = fileTarget(ctx.cwd, args.file_path)
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
    const failed = await writeTracked(ctx.state, absolute, shown, args.content)
    if (failed) return fail(failed)
    const lines = args.content === '' ? 0 : args.content.split('\n').length - (args.content.endsWith('\n') ? 1 : 0)
    const diff = await unifiedDiff(shown, before, args.content)
    return {
      content: [{ type: 'text', text: `${exists ? 'Replaced' : 'Created'} ${shown} (${counted(lines, 'line')}).` }],
      meta: { path: absolute, created: !exists, ...(diff !== undefined ? { diff } : { diffOmitted: true }) },
    }
  },
}

const fail = errorOutput
