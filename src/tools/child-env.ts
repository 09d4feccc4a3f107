/**
 * Variables that hold Rein's own credentials. No process Rein starts (bash, jobs, hooks, MCP servers, git probes)
 * receives them unless its definition names them; their values are also redacted from the log (`secrets.ts`).
 */
export const BUILTIN_SECRET_ENV: readonly string[] = ['DEEPSEEK_API_KEY']

export interface ChildEnvOptions {
  /** More secret variable names (`secretEnv` in settings). */
  secretEnv?: readonly string[]
  /** Secret variables this child was explicitly given by its definition (a hook's or MCP server's `env`). */
  pass?: readonly string[]
  /** Variables set on top (after secrets are removed). */
  set?: Record<string, string>
}

/**
 * The environment for one process Rein starts: `base` (Rein's own environment) less every secret variable the
 * child was not explicitly given, plus `set`. The one place child environments are built.
 */
export function childEnv(base: NodeJS.ProcessEnv, options: ChildEnvOptions = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base }
  const passed = new Set(options.pass ?? [])
  for (const name of [...BUILTIN_SECRET_ENV, ...(options.secretEnv ?? [])]) {
    if (!passed.has(name)) delete env[name]
  }
  return { ...env, ...options.set }
}
