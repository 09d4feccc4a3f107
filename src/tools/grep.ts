import { z } from 'zod'
import { builtinGrep } from './grep-builtin.js'
import type { GrepQuery } from './grep-query.js'
import { findRipgrep, ripgrep } from './grep-ripgrep.js'
import { commandEnv } from './process-group.js'
import { leftOutNote, readGuardOf } from './read-guard.js'
import { resolveToolPath } from './paths.js'
import { capForModel } from './spill.js'
import type { Tool } from './tool.js'
import { counted } from '../text/count.js'
import { metaNumber, pathArg, stringArg } from './display-args.js'

/** Result lines (files, counts or matched lines) one call returns at most. */
export const GREP_MAX_LINES = 250

const schema = z.object({
  pattern: z.string(),
  path: z.string().optional(),
  glob: z.string().optional(),
  output_mode: z.enum(['content', 'files_with_matches', 'count']).optional(),
  '-i': z.boolean().optional(),
  '-n': z.boolean().optional(),
  // Context lines are clamped to [0, CONTEXT_MAX] in `run` rather than bounded here: bounds in the schema cost ~20
  // tokens of every request's cached prefix.
  '-A': z.number().int().optional(),
  '-B': z.number().int().optional(),
  '-C': z.number().int().optional(),
})

/** Context lines one side of a match at most. */
const CONTEXT_MAX = 50
const contextLines = (n: number | undefined): number => Math.min(CONTEXT_MAX, Math.max(0, n ?? 0))

const description = 'Search file contents by regex (ripgrep). Lists matching files unless output_mode says otherwise.'

type Args = z.infer<typeof schema>

/**
 * Which engine runs: ripgrep when `rg` is on PATH, the built-in search otherwise. `REIN_GREP=builtin` forces the
 * built-in one (tests use it to cover both paths on any machine).
 */
export function grepEngine(): { kind: 'ripgrep'; rg: string } | { kind: 'builtin' } {
  if (process.env.REIN_GREP === 'builtin') return { kind: 'builtin' }
  const rg = findRipgrep()
  return rg ? { kind: 'ripgrep', rg } : { kind: 'builtin' }
}

export const grepTool: Tool<Args> = {
  name: 'grep',
  description,
  schema,
  readOnly: true,
  kind: 'search',
  category: 'read',
  peerNames: { claudeCode: 'Grep' },
  target: { kind: 'path', argument: 'path' },
  display: {
    verb: 'Search for',
    subject: (args, cwd) => {
      const pattern = stringArg(args, 'pattern')
      const where = pathArg(args, cwd, 'path')
      return pattern === undefined ? undefined : `"${pattern}"${where === undefined ? '' : ` in ${where}`}`
    },
    summary: (result) => {
      const lines = metaNumber(result, 'lines')
      return result.isError || lines === undefined ? undefined : counted(lines, 'line')
    },
  },
  async run(args, ctx) {
    const query: GrepQuery = {
      pattern: args.pattern,
      cwd: ctx.cwd,
      target: resolveToolPath(ctx.cwd, args.path ?? '.'),
      glob: args.glob,
      mode: args.output_mode ?? 'files_with_matches',
      ignoreCase: args['-i'] ?? false,
      lineNumbers: args['-n'] ?? true,
      before: contextLines(args['-B'] ?? args['-C']),
      after: contextLines(args['-A'] ?? args['-C']),
      maxLines: GREP_MAX_LINES,
      signal: ctx.signal,
      env: commandEnv(ctx.state),
      refuses: readGuardOf(ctx.state)?.refuses,
    }
    const engine = grepEngine()
    const result = engine.kind === 'ripgrep' ? await ripgrep(engine.rg, query) : await builtinGrep(query)
    if ('error' in result) return { content: [{ type: 'text', text: result.error }], isError: true }
    let text = result.lines.length ? result.lines.join('\n') : 'No matches.'
    if (result.cut) text += `\n[results cut at ${GREP_MAX_LINES} lines; narrow the pattern, path or glob]`
    if (result.leftOut) text += `\n${leftOutNote(result.leftOut)}`
    return {
      content: [{ type: 'text', text: capForModel(ctx.state, 'grep', text) }],
      meta: { engine: engine.kind, lines: result.lines.length, cut: result.cut, leftOut: result.leftOut },
    }
  },
}
