/** What a worker's log line is about, beside its sentence. */
export interface LogFields {
  /** `error` for a failure the operator may need to act on; everything else is `info`. */
  level?: 'info' | 'error'
  worker?: string
  batch?: string
  task?: string
}

export type LogFormat = 'text' | 'json'

/**
 * One line of a worker's log. `text` is the sentence a person reads; `json` is one object per line for a log
 * collector (Loki, CloudWatch, `jq`): `time` (ISO 8601, UTC), `level`, `msg` (the same sentence), and `worker`,
 * `batch`, `task` when the line is about one. Control characters in a sentence (a task's error text can hold
 * anything) are escaped by JSON, and replaced by spaces in text, so one event is always one line.
 */
export function formatLogLine(format: LogFormat, msg: string, fields: LogFields = {}, now: Date = new Date()): string {
  if (format === 'text') return msg.replace(/[\u0000-\u001f\u007f]/g, ' ')
  const { level = 'info', ...about } = fields
  return JSON.stringify({ time: now.toISOString(), level, msg, ...about })
}
