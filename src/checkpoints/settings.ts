import type { Settings } from '../config/settings.js'
import { DEFAULT_MAX_FILE_BYTES } from './engine.js'

/** Sessions per workspace whose snapshots retention keeps, whatever their age. */
export const DEFAULT_KEEP_SESSIONS = 20
/** Days for which retention keeps every session's snapshots, however many sessions there were. */
export const DEFAULT_KEEP_DAYS = 30

/** What retention keeps: a session's snapshots stay when either rule keeps them (docs/checkpoints.md, Retention). */
export interface RetentionRules {
  keepSessions: number
  keepDays: number
}

/** The `checkpoints` settings block with its defaults filled in (ranges were checked when the file was read). */
export interface CheckpointConfig extends RetentionRules {
  enabled: boolean
  maxFileBytes: number
}

export function checkpointConfig(settings: Settings): CheckpointConfig {
  const block = settings.checkpoints ?? {}
  return {
    enabled: block.enabled ?? true,
    keepSessions: block.keepSessions ?? DEFAULT_KEEP_SESSIONS,
    keepDays: block.keepDays ?? DEFAULT_KEEP_DAYS,
    maxFileBytes: block.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
  }
}
