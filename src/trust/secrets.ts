import { readFileSync } from 'node:fs'
import { credentialsPath } from '../llm/credentials.js'
import { BUILTIN_SECRET_ENV, looksSecret, urlPassword } from '../tools/child-env.js'

/** What a redacted secret reads as in the log and in live output. */
export const REDACTED = '[redacted]'

/**
 * Values shorter than this are not redacted: a secret variable holding `1` or `true` would otherwise turn every
 * such character in the log into `[redacted]`. Real keys and tokens are far longer.
 */
export const MIN_SECRET_LENGTH = 8

/**
 * The secret values to keep out of the log: the values of the secret variables in `env` (built in, `secretEnv`, and
 * every name that looks like a secret, src/tools/child-env.ts), every value in the credentials file (`KEY=value` lines
 * or a bare key), the store URLs Rein was given (`stores`: the `--store` flag, the `store.url` setting), and the
 * password inside each of those that is a URL (`postgres://rein:<password>@…`).
 */
export function secretValues(options: {
  env: NodeJS.ProcessEnv
  home: string
  secretEnv?: readonly string[]
  stores?: readonly (string | undefined)[]
}): string[] {
  const values = new Set<string>()
  const add = (raw: string | undefined): void => {
    const value = raw?.trim()
    if (!value) return
    values.add(value)
    const password = urlPassword(value)
    if (password) values.add(password)
  }
  const named = new Set([...BUILTIN_SECRET_ENV, ...(options.secretEnv ?? [])])
  for (const [name, value] of Object.entries(options.env)) if (named.has(name) || looksSecret(name)) add(value)
  for (const value of Object.values(options.env)) if (value && urlPassword(value)) add(value)
  options.stores?.forEach(add)
  for (const value of credentialsFileValues(options.home)) add(value)
  return [...values].filter((value) => value.length >= MIN_SECRET_LENGTH)
}

function credentialsFileValues(home: string): string[] {
  let text: string
  try {
    text = readFileSync(credentialsPath(home), 'utf8')
  } catch {
    return [] // No credentials file: nothing of it to redact.
  }
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const match = /^(?:export\s+)?[A-Za-z_][A-Za-z0-9_]*\s*=\s*["']?(.*?)["']?$/.exec(line)
      return (match ? match[1] : line).trim()
    })
}

/** Replaces every occurrence of every secret in text by `[redacted]`; longest first, so a secret that contains another goes whole. */
export function createRedactor(secrets: readonly string[]): (text: string) => string {
  const ordered = [...new Set(secrets)].filter((s) => s.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length)
  if (ordered.length === 0) return (text) => text
  return (text) => {
    let out = text
    for (const secret of ordered) if (out.includes(secret)) out = out.split(secret).join(REDACTED)
    return out
  }
}
