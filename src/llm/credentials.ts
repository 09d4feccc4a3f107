import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'

/** The file a user may keep the key in instead of the environment: `$REIN_HOME/credentials`, owner-only. */
export function credentialsPath(home: string): string {
  return join(home, 'credentials')
}

/**
 * The DeepSeek API key, read at request time: `DEEPSEEK_API_KEY` first, then the credentials file (either the bare
 * key or `DEEPSEEK_API_KEY=...` lines). A credentials file readable by others is ignored, as ssh does.
 */
export function resolveApiKey(env: NodeJS.ProcessEnv, home: string): string | undefined {
  const fromEnv = env.DEEPSEEK_API_KEY?.trim()
  if (fromEnv) return fromEnv
  const path = credentialsPath(home)
  try {
    if ((statSync(path).mode & 0o077) !== 0) return undefined
    const text = readFileSync(path, 'utf8')
    const line = text.split(/\r?\n/).find((l) => l.trim() && !l.trim().startsWith('#'))
    if (!line) return undefined
    const match = /^\s*(?:export\s+)?DEEPSEEK_API_KEY\s*=\s*["']?([^"'\s]+)["']?\s*$/.exec(line)
    return (match ? match[1] : line.trim()) || undefined
  } catch {
    // No credentials file (or unreadable): the caller reports the missing key in one sentence.
    return undefined
  }
}

export const MISSING_KEY_MESSAGE =
  'No DeepSeek API key is configured: set DEEPSEEK_API_KEY (or put the key in ~/.rein/credentials with mode 600), or run `rein demo` to try Rein without one.'
