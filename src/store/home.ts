import { createHash } from 'node:crypto'
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'

/** Rein's home directory: `$REIN_HOME` when set and non-empty, else `~/.rein`. Always absolute. */
export function reinHome(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.REIN_HOME
  return fromEnv ? resolve(fromEnv) : join(homedir(), '.rein')
}

/** The longest readable part kept in a cwd key; the hash keeps keys of long paths distinct. */
const MAX_READABLE = 60

/**
 * A filesystem-safe directory name for a working directory: the absolute path with every character outside
 * `[A-Za-z0-9._-]` turned into `-` (leading dashes dropped, only the last 60 characters kept), then `-` and the first
 * 8 hex digits of the path's SHA-256. Two different paths that read the same (`/a/b` and `/a-b`) differ by hash.
 */
export function cwdKey(cwd: string): string {
  const absolute = resolve(cwd)
  const readable = absolute.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+/, '').slice(-MAX_READABLE)
  const hash = createHash('sha256').update(absolute).digest('hex').slice(0, 8)
  return readable ? `${readable}-${hash}` : hash
}
