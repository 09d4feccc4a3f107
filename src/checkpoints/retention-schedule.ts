import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { cwdKey } from '../store/home.js'
import type { RetentionRules } from './settings.js'

/** The file in a shadow repository that holds when retention last started there (ms since the epoch). */
export const RETENTION_STAMP = 'rein-retention-stamp'

/** Retention runs on session open at most this often per workspace (ms). */
export const RETENTION_INTERVAL_MS = 24 * 60 * 60 * 1000

/** The shadow repository of a workspace under `$REIN_HOME` (the same key the engine and session store use). */
export function shadowRepository(home: string, cwd: string): string {
  return join(resolve(home), 'checkpoints', cwdKey(resolve(cwd)))
}

/**
 * Whether retention is due in a repository at `now`: it exists, and its stamp is missing, unreadable, at least a
 * day old, or more than a day in the future (a clock that was wrong).
 */
export function retentionDue(gitDir: string, now: number): boolean {
  if (!existsSync(join(gitDir, 'HEAD'))) return false
  let last: number
  try {
    last = Number(readFileSync(join(gitDir, RETENTION_STAMP), 'utf8').trim())
  } catch {
    // No stamp yet: retention never ran here.
    return true
  }
  return !Number.isFinite(last) || Math.abs(now - last) >= RETENTION_INTERVAL_MS
}

export interface RetentionStart {
  home: string
  cwd: string
  env?: NodeJS.ProcessEnv
  secretEnv?: readonly string[]
  rules: RetentionRules
  /** The session being opened: never pruned. */
  keep: string
  /** Defaults to the clock. */
  now?: number
}

/**
 * On session open: when retention is due in this workspace, stamps it and prunes in the background (never awaited,
 * so the first request does not wait; the gc is detached, so a short run does not wait at exit either). A failure
 * is dropped: retention is housekeeping, and the next day's open tries again.
 * Returns the background work, for tests; undefined when nothing was due.
 */
export function startRetention(options: RetentionStart): Promise<void> | undefined {
  const gitDir = shadowRepository(options.home, options.cwd)
  const now = options.now ?? Date.now()
  if (!retentionDue(gitDir, now)) return undefined
  try {
    // Stamped first, so two sessions opened together do not both prune.
    writeFileSync(join(gitDir, RETENTION_STAMP), `${now}\n`)
  } catch {
    // A repository that cannot be written cannot be pruned either; snapshots report that problem themselves.
    return undefined
  }
  const work = import('./retention.js').then(({ pruneRepository }) =>
    pruneRepository({ gitDir, env: options.env, secretEnv: options.secretEnv, rules: options.rules, now, keep: new Set([options.keep]), gc: 'detach' }),
  )
  return work.then(
    () => undefined,
    // A damaged repository is reported by the next snapshot (checkpoint/created with error) and by `rein checkpoints`.
    () => undefined,
  )
}
