import { readFile } from 'node:fs/promises'
import { z } from 'zod'
import { unifiedDiff } from './diff-meta.js'
import { checkFresh, freshnessError, writeTracked } from './file-versions.js'
import { fileTarget } from './paths.js'
import { errorOutput, type Tool } from './tool.js'
import { counted } from '../text/count.js'
import { currentText, metaNumber, metaString, stringArg, pathArg } from './display-args.js'

const schema = z.object({
  file_path: z.string(),
  old_string: z.string(),
  new_string: z.string(),
  replace_all: z.boolean().optional(),
})

const description =
  'Replace old_string with new_string. old_string must occur exactly once unless replace_all.'

type Args = z.infer<typeof schema>

export const editTool: Tool<Args> = {
  name: 'edit',
  description,
  schema,
  readOnly: false,
  kind: 'edit',
  category: 'edit',
  peerNames: { claudeCode: 'Edit', codex: 'apply_patch' },
  target: { kind: 'file', argument: 'file_path' },
  display: {
    verb: 'Edit',
    subject: (args, cwd) => pathArg(args, cwd, 'file_path'),
    summary: (result) => {
      const n = metaNumber(result, 'replacements')
      return result.isError || n === undefined ? undefined : `replaced ${counted(n, 'occurrence')}`
    },
    diff: (result) => metaString(result, 'diff'),
    async proposed(args, cwd) {
      const file = stringArg(args, 'file_path')
      const oldText = args.old_string
      const newText = args.new_string
      if (file === undefined || typeof oldText !== 'string' || oldText === '' || typeof newText !== 'string') return undefined
      const { absolute } = fileTarget(cwd, file)
      const before = await currentText(absolute)
      if (before === null) return undefined
      const match = findMatch(before, oldText, newText)
      if (match.count === 0 || (match.count > 1 && args.replace_all !== true)) return undefined
      return { path: absolute, before, after: before.split(match.old).join(match.new) }
    },
  },
  async run(args, ctx) {
    const { shown, absolute } = fileTarget(ctx.cwd, args.file_path)
    if (args.old_string === '') return fail('Error: old_string is empty; to create a file use write.')
    if (args.old_string === args.new_string) return fail('Error: old_string and new_string are the same; nothing to change.')
    let bytes: Buffer
    try {
      bytes = await readFile(absolute)
    } catch {
      return fail(`Error: ${shown} does not exist or cannot be read; use write to create a file.`)
    }
    const before = bytes.toString('utf8')
    if (!Buffer.from(before, 'utf8').equals(bytes)) {
      return fail(`Error: ${shown} is not valid UTF-8 text, so edit would corrupt it; change it with bash instead.`)
    }
    const fresh = await checkFresh(ctx.state, absolute)
    if (!fresh.ok) return fail(freshnessError(shown, fresh.reason))

    const match = findMatch(before, args.old_string, args.new_string)
    if (match.count === 0) {
      return fail(`Error: old_string was not found in ${shown}; read the file again and copy the text exactly, whitespace included.`)
    }
    if (match.count > 1 && !args.replace_all) {
      return fail(
        `Error: old_string occurs ${match.count} times in ${shown}; add surrounding lines to make it unique, or set replace_all.`,
      )
    }
    const after = before.split(match.old).join(match.new)
    const failed = await writeTracked(ctx.state, absolute, shown, after)
    if (failed) return fail(failed)
    const diff = await unifiedDiff(shown, before, after)
    const count = args.replace_all ? match.count : 1
    return {
      content: [{ type: 'text', text: `Edited ${shown}: replaced ${counted(count, 'occurrence')}.` }],
      meta: { path: absolute, replacements: count, ...(diff !== undefined ? { diff } : { diffOmitted: true }) },
    }
  },
}

const fail = errorOutput

/**
 * Finds `oldText` in `content`, keeping the file's line endings: models write `\n`, so in a file with CRLF endings
 * the strings are first tried with `\r\n`, and the replacement takes the same form. The literal strings are the
 * fallback (a mixed file, or text that really has bare `\n`).
 */
function findMatch(content: string, oldText: string, newText: string): { count: number; old: string; new: string } {
  if (content.includes('\r\n')) {
    const toCrlf = (s: string) => s.replace(/\r\n/g, '\n').replace(/\n/g, '\r\n')
    const crlfOld = toCrlf(oldText)
    const count = occurrences(content, crlfOld)
    if (count > 0) return { count, old: crlfOld, new: toCrlf(newText) }
  }
  return { count: occurrences(content, oldText), old: oldText, new: newText }
}

function occurrences(haystack: string, needle: string): number {
  let count = 0
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) count++
  return count
}
