import { resolve } from 'node:path'
import type { ToolCallContent } from '@agentclientprotocol/sdk'
import { describeChanges } from '../checkpoints/describe-changes.js'
import type { Change } from '../checkpoints/engine.js'
import type { StepFile } from '../checkpoints/step-diff.js'

/** Most files of one step sent as diffs; the rest are named in a text line. */
export const DIFF_FILES = 20
/** Most characters of old plus new text sent for one step; a file that would pass it is named instead. */
export const DIFF_CHARS = 1024 * 1024

/** The text line that names what a step changed, for when its diffs cannot be shown (or have not been read yet). */
export function changesLine(paths: readonly Change[]): ToolCallContent {
  return { type: 'content', content: { type: 'text', text: `Changed: ${describeChanges(paths)}` } }
}

/**
 * What a step changed, as ACP tool-call content: a `diff` item per text file (absolute path, old text absent for a new
 * file, new text empty for a deleted one), within `DIFF_FILES` files and `DIFF_CHARS` characters in all. Binary
 * files, files over the read cap and whatever did not fit are named in one text line after the diffs.
 */
export function stepDiffContent(files: readonly StepFile[], all: readonly Change[], cwd: string): ToolCallContent[] {
  const out: ToolCallContent[] = []
  const named: Change[] = []
  let budget = DIFF_CHARS
  for (const file of files) {
    const oldText = file.old.kind === 'text' ? file.old.text : file.old.kind === 'absent' ? null : undefined
    const newText = file.new.kind === 'text' ? file.new.text : file.new.kind === 'absent' ? '' : undefined
    const size = (oldText?.length ?? 0) + (newText?.length ?? 0)
    if (oldText === undefined || newText === undefined || size > budget) {
      named.push({ path: file.path, kind: file.kind })
      continue
    }
    budget -= size
    out.push({ type: 'diff', path: resolve(cwd, file.path), ...(oldText === null ? {} : { oldText }), newText })
  }
  const shown = new Set(files.map((f) => f.path))
  named.push(...all.filter((c) => !shown.has(c.path)))
  if (named.length) out.push(changesLine(named))
  return out
}
