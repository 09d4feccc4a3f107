/**
 * The one list of what no process Rein starts receives (bash commands and their background jobs, hooks, MCP stdio
 * servers, command `` !`cmd` `` lines, Rein's own git calls, a batch task's `setup` and clone), and the one builder of
 * child environments (`childEnv`). docs/trust.md, "Clean child environments", lists the same for people.
 *
 * Stripped from every child:
 * 1. Rein's own credentials and the store's, by name (`BUILTIN_SECRET_ENV`), plus every name in `secretEnv` (settings);
 * 2. every variable whose name looks like a secret (`looksSecret`), unless a setting passes it on by name (`passEnv`);
 * 3. every variable whose value is a URL carrying a password (`postgres://user:pw@host/db`): a store or credential
 *    URL, under whatever name;
 * 4. every variable whose value holds a value stripped by 1–3 (the key or the store URL copied under another name),
 *    or is the password of a URL stripped by 3 (or given as `secretValues`).
 * A child's own definition may still name a variable it needs (`pass`: a hook's `env` list, an MCP server's `env`).
 * Their values are also redacted from the log (src/trust/secrets.ts).
 */
export const BUILTIN_SECRET_ENV: readonly string[] = [
  'DEEPSEEK_API_KEY',
  'REIN_STORE',
  'DATABASE_URL',
  // libpq's password sources: the password itself, and files that may hold one.
  'PGPASSWORD',
  'PGPASSFILE',
  'PGSERVICEFILE',
  'PGSSLKEY',
]

/**
 * Names that look like secrets, in any case: a last word `TOKEN`, `SECRET`, `PASSWORD`, `PASSWD`, `PASSPHRASE`,
 * `CREDENTIAL(S)`, `APIKEY` or `KEY` (`GITHUB_TOKEN`, `aws_secret_access_key`, `OPENAI_API_KEY`, `NPM_AUTH_TOKEN`), or
 * `TOKEN`, `SECRET`, `PASSWORD` as an inner word (`SECRET_KEY_BASE`, `VAULT_TOKEN_FILE`). Words are split at `_`.
 */
const SECRET_NAME = /(?:^|_)(?:TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIALS?|APIKEY|KEY)$|(?:^|_)(?:TOKEN|SECRET|PASSWORD|PASSWD)_/i

/** A URL with a password in its user info: `scheme://user:password@…`. The password is group 1. */
const CREDENTIAL_URL = /[a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:([^\s/@]+)@/i

/**
 * A stripped value's copies are found from `MIN_COPY_LENGTH` characters (equal or contained): a stripped variable
 * holding `true` must not strip every other variable that holds `true`. A URL's password is matched by equality from
 * `MIN_PASSWORD_LENGTH`, since passwords are often short and a variable holding exactly one is no coincidence.
 */
const MIN_COPY_LENGTH = 8
const MIN_PASSWORD_LENGTH = 4

export function looksSecret(name: string): boolean {
  return SECRET_NAME.test(name)
}

/** The password a credential URL carries (percent-decoded), or undefined when the text holds no such URL. */
export function urlPassword(text: string): string | undefined {
  const match = CREDENTIAL_URL.exec(text)
  if (!match) return undefined
  try {
    return decodeURIComponent(match[1])
  } catch {
    return match[1] // Not valid percent-encoding: the password is the text as written.
  }
}

export interface ChildEnvOptions {
  /** More secret variable names (`secretEnv` in settings). */
  secretEnv?: readonly string[]
  /** Names that look like secrets but that the user passes on to commands (`passEnv` in settings); never Rein's own. */
  passEnv?: readonly string[]
  /** Variables this child was explicitly given by its definition (a hook's or MCP server's `env`): kept whatever they are. */
  pass?: readonly string[]
  /** Secret values Rein holds that may not be in `base` (the store URL a flag gave): stripped wherever they appear. */
  secretValues?: readonly string[]
  /** Variables set on top (after secrets are removed). */
  set?: Record<string, string>
}

/**
 * The environment for one process Rein starts: `base` (Rein's own environment) less every secret the child was not
 * explicitly given (the list above), plus `set`. The one place child environments are built.
 */
export function childEnv(base: NodeJS.ProcessEnv, options: ChildEnvOptions = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base }
  const passed = new Set(options.pass ?? [])
  const named = new Set([...BUILTIN_SECRET_ENV, ...(options.secretEnv ?? [])])
  const passOn = new Set((options.passEnv ?? []).filter((name) => !BUILTIN_SECRET_ENV.includes(name)))
  const values = new Set<string>()
  const passwords = new Set<string>()
  const strip = (value: string | undefined): void => {
    if (!value) return
    if (value.length >= MIN_COPY_LENGTH) values.add(value)
    const password = urlPassword(value)
    if (password && password.length >= MIN_PASSWORD_LENGTH) passwords.add(password)
  }
  options.secretValues?.forEach(strip)
  for (const [name, value] of Object.entries(env)) {
    if (passed.has(name)) continue
    if (named.has(name) || (looksSecret(name) && !passOn.has(name)) || (value && CREDENTIAL_URL.test(value))) {
      strip(value)
      delete env[name]
    }
  }
  for (const [name, value] of Object.entries(env)) {
    if (passed.has(name) || !value) continue
    if (passwords.has(value) || [...values].some((secret) => value.includes(secret))) delete env[name]
  }
  return { ...env, ...options.set }
}
