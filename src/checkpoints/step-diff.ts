import { createTwoFilesPatch } from 'diff'
import type { SessionEvent } from '../session/events.js'
import type { Change } from './engine.js'
import type { FileVersion, SnapshotFiles } from './file-at.js'

/** One step's changes as the log tells them: the snapshot before the step, what changed, and where "after" is read. */
export interface StepChanges {
  turn: number
  step: number
  /** The snapshot taken before the step's first mutating call. */
  before: string
  paths: Change[]
  /**
   * The state after the step: the next snapshot this session took (before its next mutating step), or, when there is
   * none yet, the workspace as it is now.
   */
  after: string | 'workspace'
}

/** A changed file's two versions. */
export interface StepFile extends Change {
  old: FileVersion
  new: FileVersion
}

/** Bytes of one version a front end reads for a diff; larger files are named, not shown. */
export const DIFF_FILE_BYTES = 256 * 1024

/** The step's changes located in the log, or undefined when the step logged none (or took no snapshot). */
export function stepChanges(events: readonly SessionEvent[], turn: number, step: number): StepChanges | undefined {
  let before: string | undefined
  let paths: Change[] | undefined
  let listedAt = -1
  for (let i = 0; i < events.length; i++) {
    const e = events[i]
    if (e.type === 'checkpoint/created' && e.data.turn === turn && e.data.step === step && 'commit' in e.data) before = e.data.commit
    else if (e.type === 'checkpoint/changes' && e.data.turn === turn && e.data.step === step) {
      paths = e.data.paths.map((p) => ({ path: p.path, kind: p.kind }))
      listedAt = i
    }
  }
  if (!before || !paths) return undefined
  let after: string | 'workspace' = 'workspace'
  for (let i = listedAt + 1; i < events.length; i++) {
    const e = events[i]
    if (e.type === 'checkpoint/created' && 'commit' in e.data && e.data.commit) {
      after = e.data.commit
      break
    }
  }
  return { turn, step, before, paths, after }
}

/** Both versions of every file the step changed, in the listing's order; at most `limit` files. */
export async function stepFiles(
  files: SnapshotFiles,
  changes: Pick<StepChanges, 'before' | 'paths' | 'after'>,
  limit = Infinity, maxBytes = DIFF_FILE_BYTES): Promise<StepFile[]> {
  const paths = changes.paths.slice(0, limit)
  const names = paths.map((p) => p.path)
  const old = await files.at(changes.before, names, maxBytes)
  const now = changes.after === 'workspace' ? undefined : await files.at(changes.after, names, maxBytes)
  return paths.map((p) => ({
    ...p,
    old: old.get(p.path) ?? { kind: 'absent' },
    new: now ? (now.get(p.path) ?? { kind: 'absent' }) : files.inWorkspace(p.path, maxBytes),
  }))
}

/** A version's text for a diff, or a one-line stand-in saying why the content is not shown. */
function diffText(version: FileVersion): string {
  switch (version.kind) {
    case 'text':
      return version.text
    case 'absent':
      return ''
    case 'binary':
      return `(binary file, ${version.bytes} bytes)\n`
    case 'too-large':
      return `(file of ${version.bytes} bytes, too large to show)\n`
  }
}

/**
 * The unified diff of a step's files (`a/` before the step, `b/` after), each starting at its `---` line; a file
 * added or deleted diffs against /dev/null.
 */
export function unifiedStepDiff(files: readonly StepFile[]): string {
  return files
    .map((f) =>
      createTwoFilesPatch(
        f.kind === 'added' ? '/dev/null' : `a/${f.path}`,
        f.kind === 'deleted' ? '/dev/null' : `b/${f.path}`,
        diffText(f.old),
        diffText(f.new),
        undefined,
        undefined,
        { context: 3 },
      ).replace(/^=+\n/, ''),
    )
    .join('')
}
