/** One grep request as both search engines take it. Paths in results are shown relative to `cwd` when inside it. */
export interface GrepQuery {
  pattern: string
  cwd: string
  /** Absolute file or directory to search. */
  target: string
  glob?: string
  mode: 'content' | 'files_with_matches' | 'count'
  ignoreCase: boolean
  lineNumbers: boolean
  before: number
  after: number
  /** Stop after this many result lines; `cut` then says so. */
  maxLines: number
  signal: AbortSignal
  /** The environment ripgrep runs with: Rein's less every secret (`commandEnv`). */
  env?: NodeJS.ProcessEnv
  /** Why a file may not be searched (the read guard), or undefined; refused files are left out of the results. */
  refuses?: (absolute: string) => string | undefined
}

/** `leftOut`: files or directories the read guard kept out of the search. */
export type GrepResult = { lines: string[]; cut: boolean; leftOut: number } | { error: string }

/** Characters of one matched line that are kept; longer lines are cut so one minified file cannot flood the result. */
export const GREP_LINE_CHARS = 1000
