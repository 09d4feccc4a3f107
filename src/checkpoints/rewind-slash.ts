import { counted } from '../text/count.js'
import type { RewindOutcome, TurnCheckpoint } from './rewind-types.js'

/** What `/rewind` restores when it runs: both (the default), the files only, or the conversation only. */
export type RewindScope = 'both' | 'code' | 'conversation'

/** A `/rewind` argument, read: list the turns, undo the latest rewind, or go back to a turn. */
export type RewindSlash = { kind: 'list' } | { kind: 'undo' } | { kind: 'turn'; turn: number; scope?: RewindScope } | { kind: 'error'; message: string }

const USAGE = '/rewind alone lists the turns; /rewind <turn> [code|conversation] goes back to one; /rewind undo undoes the last rewind'

/**
 * Reads the text after `/rewind` (the terminal UI and ACP share the grammar): nothing, `undo`, or a turn number
 * optionally followed by `code` or `conversation`. Anything else is refused in one sentence that gives the grammar.
 */
export function parseRewindSlash(arg: string): RewindSlash {
  const words = arg.trim().split(/\s+/).filter(Boolean)
  if (!words.length) return { kind: 'list' }
  if (words.length === 1 && words[0].toLowerCase() === 'undo') return { kind: 'undo' }
  const [first, second, ...rest] = words
  if (!/^\d{1,9}$/.test(first) || Number(first) < 1) {
    return { kind: 'error', message: `"${first.slice(0, 40)}" is not a turn number; ${USAGE}.` }
  }
  if (rest.length || (second !== undefined && second !== 'code' && second !== 'conversation')) {
    return { kind: 'error', message: `After the turn number, /rewind takes only code or conversation; ${USAGE}.` }
  }
  return { kind: 'turn', turn: Number(first), ...(second ? { scope: second as RewindScope } : {}) }
}

/** The `code` and `conversation` switches of a rewind request for a scope. */
export function scopeRequest(scope: RewindScope): { code: boolean; conversation: boolean } {
  return { code: scope !== 'conversation', conversation: scope !== 'code' }
}

/** One turn as a picker row: the prompt's first line and how many files it changed. */
export function turnRow(turn: TurnCheckpoint): { label: string; detail: string } {
  return {
    label: `turn ${turn.turn}: ${turn.prompt || '(no prompt)'}`.slice(0, 100),
    detail: turn.changes.length ? `${counted(turn.changes.length, 'file')} changed` : 'no files changed',
  }
}

/** The turns of a session as `/rewind` lists them, newest first: one line each, with the paths each changed. */
export function turnListing(turns: readonly TurnCheckpoint[]): string {
  return turns
    .slice()
    .reverse()
    .map((t) => {
      const row = turnRow(t)
      const paths = t.changes.length ? `: ${t.changes.map((c) => `${c.path} (${c.kind})`).join(', ')}` : ''
      return `${row.label} — ${row.detail}${paths}`
    })
    .join('\n')
}

const VERB = { modified: 'put back', added: 'removed', deleted: 'brought back' } as const

/**
 * What a planned (or done) rewind does to the files, one line per path, then the conflicts: files changed since Rein
 * last wrote them, which the rewind asks about before overwriting.
 */
export function rewindPlanLines(outcome: RewindOutcome | undefined): string[] {
  const code = outcome?.code
  if (!code) return []
  const lines = code.changes.map((c) => `  ${VERB[c.kind].padEnd(12)} ${c.path}`)
  if (code.conflicts.length) lines.push(`Changed since Rein last wrote them (you are asked before they are overwritten): ${code.conflicts.join(', ')}`)
  if (code.kept.length) lines.push(`Kept as they are: ${code.kept.join(', ')}`)
  return lines
}
