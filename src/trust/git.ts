import { execFile } from 'node:child_process'
import { childEnv } from '../tools/child-env.js'

/**
 * Configuration that turns off every way a repository's own config can make git run a program during Rein's
 * read-only probes. `-c` beats every config file, so these hold whatever `.git/config` (or a file it includes) says.
 * Content filter drivers have names chosen by the repository, so they are disabled by name (`filterOverrides`).
 */
export const SAFE_GIT_CONFIG: readonly string[] = [
  'core.fsmonitor=false',
  'core.hooksPath=/dev/null',
  'core.pager=cat',
  'core.editor=true',
  'core.sshCommand=',
  'core.gitProxy=',
  'core.askPass=',
  'core.alternateRefsCommand=',
  'credential.helper=',
  'diff.external=',
  'sequence.editor=true',
  'gpg.program=',
  'protocol.allow=never',
  'submodule.recurse=false',
]

/** Environment for Rein's own git: no secrets, no system config, no prompts, pagers or external diff programs. */
export function gitEnv(base: NodeJS.ProcessEnv, secretEnv: readonly string[] = []): NodeJS.ProcessEnv {
  const env = childEnv(base, {
    secretEnv,
    set: { LC_ALL: 'C', GIT_OPTIONAL_LOCKS: '0', GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', PAGER: 'cat' },
  })
  for (const name of ['GIT_EXTERNAL_DIFF', 'GIT_SSH', 'GIT_SSH_COMMAND', 'GIT_ASKPASS', 'SSH_ASKPASS', 'GIT_EDITOR', 'GIT_SEQUENCE_EDITOR']) {
    delete env[name]
  }
  return env
}

/** `-c key=value` pairs for `SAFE_GIT_CONFIG` and the given filter driver names. */
export function safeGitArgs(filterDrivers: readonly string[] = []): string[] {
  const pairs = [...SAFE_GIT_CONFIG, ...filterOverrides(filterDrivers)]
  return pairs.flatMap((pair) => ['-c', pair])
}

/** An empty clean/smudge command means "no filter" to git; an empty process command fails to start, not required. */
export function filterOverrides(drivers: readonly string[]): string[] {
  return drivers.flatMap((name) => [`filter.${name}.clean=`, `filter.${name}.smudge=`, `filter.${name}.process=`, `filter.${name}.required=false`])
}

/** Reads which content filter drivers the config names: `git config` only reads files, it never runs one. */
export function filterDriverNames(configList: string): string[] {
  const names = new Set<string>()
  for (const entry of configList.split('\0')) {
    const key = entry.split('\n')[0]
    const match = /^filter\.(.+)\.(?:clean|smudge|process|required)$/i.exec(key)
    if (match) names.add(match[1])
  }
  return [...names]
}

export interface SafeGitResult {
  error: (Error & { code?: string | number | null; killed?: boolean }) | null
  stdout: string
}

/**
 * Runs `git <args>` in `cwd` with repository-controlled execution turned off: first `git config` lists the filter
 * drivers the config defines (so they can be disabled by name), then the command runs under `safeGitArgs`.
 */
export function runSafeGit(
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; secretEnv?: readonly string[]; timeoutMs: number },
): Promise<SafeGitResult> {
  const env = gitEnv(options.env ?? process.env, options.secretEnv)
  const run = (argv: string[]) =>
    new Promise<SafeGitResult>((resolve) => {
      execFile('git', argv, { cwd: options.cwd, env, timeout: options.timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout) =>
        resolve({ error, stdout: String(stdout) }),
      )
    })
  return run([...safeGitArgs(), 'config', '--null', '--get-regexp', '^filter\\.']).then((config) => {
    // No filter keys (exit 1), not a repository, or no git: the command below gives the real answer for those.
    const drivers = config.error ? [] : filterDriverNames(config.stdout)
    return run([...safeGitArgs(drivers), ...args])
  })
}
