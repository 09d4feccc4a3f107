import type { Change } from './engine.js'

/** The command names the checkpoint extension offers (`agent.runCommand(name, { args })`). */
export const REWIND_COMMAND = 'rewind'
export const UNDO_REWIND_COMMAND = 'rewind-undo'

/** What to do with files that changed since Rein last wrote them (by the user or another program). */
export type ConflictChoice = 'ask' | 'overwrite' | 'keep'

/** The `args` of the `rewind` command. */
export interface RewindRequest {
  /** Go back to the start of this turn. */
  turn: number
  /** Put the workspace back as it was before the turn's first change (default true). */
  code?: boolean
  /** Continue in a fork of the session made at the turn's start (default true); the old branch stays. */
  conversation?: boolean
  /** Default `ask`: the front end is asked, through the permission prompt, before a conflicting file is overwritten. */
  conflicts?: ConflictChoice
  /** Only plan: report what would change and the conflicts; change nothing, log nothing. */
  dryRun?: boolean
}

/** What a code rewind would do (dry run) or did. */
export interface CodeRewind {
  /** The snapshot restored; null when the agent changed nothing from that turn on (nothing to restore). */
  target: string | null
  /** A snapshot of the workspace just before the rewind: what undoing it restores. */
  before?: string
  /** What the restore changes (did change), as seen from the target. */
  changes: Change[]
  /** Files changed since Rein last wrote them that the restore would overwrite. */
  conflicts: string[]
  /** Conflicting files left as they are (the choice was `keep`). */
  kept: string[]
  /**
   * Paths that differ from the target but that the restore leaves as they are whatever the snapshot says: over the
   * size limit, ignored, in a nested repository, or (checked again just before writing) changed while it ran.
   */
  leftAlone?: { path: string; reason: 'too-large' | 'nested-repository' | 'ignored' | 'changed' | 'blocked' | 'submodule' }[]
}

/** The `data` of the `rewind` command's result (outcome `rewound`, `planned`, `nothing` or `cancelled`). */
export interface RewindOutcome {
  turn: number
  code?: CodeRewind
  /** The fork the conversation continues in: the front end switches to it. */
  fork?: { id: string; seq: number | null }
}

/** One turn as a rewind picker lists it. */
export interface TurnCheckpoint {
  turn: number
  /** The seq of its `turn/start`. */
  startSeq: number
  /** The first line of the prompt that opened it (empty for a turn no prompt opened). */
  prompt: string
  /** The snapshot taken before the turn's first change, if the turn changed anything. */
  snapshot?: string
  /** Every path the turn's steps changed, in order, once each (its latest kind). */
  changes: Change[]
}
