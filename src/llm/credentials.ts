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

/**
 * Why the credentials file exists but gives no key, as one sentence naming the file, or undefined when it is absent
 * or gives one: readable by others (its mode), not a file, unreadable, or holding no key.
 */
export function skippedCredentials(home: string): string | undefined {
  const path = credentialsPath(home)
  let info
  try {
    info = statSync(path)
  } catch {
    return undefined // No credentials file: nothing was skipped.
  }
  if (!info.isFile()) return `the credentials file ${path} is not a file, so it was skipped`
  const mode = (info.mode & 0o777).toString(8).padStart(4, '0')
  if ((info.mode & 0o077) !== 0) return `the credentials file ${path} has mode ${mode}, so others can read it and it was skipped; run \`chmod 600 ${path}\``
  try {
    readFileSync(path, 'utf8')
  } catch (error) {
    return `the credentials file ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}), so it was skipped`
  }
  return resolveApiKey({}, home) ? undefined : `the credentials file ${path} holds no key`
}

/** The sentence for a run without a key: the general one, or the one that names the credentials file Rein skipped and why. */
export function missingKeyMessage(home: string): string {
  const skipped = skippedCredentials(home)
  return skipped ? `No DeepSeek API key is configured: DEEPSEEK_API_KEY is not set, and ${skipped}.` : MISSING_KEY_MESSAGE
}

export const MISSING_KEY_MESSAGE =
  'No DeepSeek API key is configured: set DEEPSEEK_API_KEY (or put the key in ~/.rein/credentials with mode 600), or run `rein demo` to try Rein without one.'
