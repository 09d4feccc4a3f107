import { spawn } from 'node:child_process'
import { childEnv } from '../tools/child-env.js'

/** How long a clone may take before it is stopped: a plugin or marketplace repository is small. */
export const CLONE_TIMEOUT_MS = 120_000

/**
 * `git clone --depth 1` of `url` into `dest` (which must not exist), never asking for a password (a prompt would hang
 * a script), with Rein's secrets kept from git. Resolves, or rejects with one sentence naming the URL.
 */
export function shallowClone(url: string, dest: string, options: { ref?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<void> {
  // Only transports that fetch: never `ext::` or another remote helper, which would run a command a marketplace names.
  if (!CLONEABLE.test(url) || options.ref?.startsWith('-')) {
    return Promise.reject(new Error(`${url} is not a git URL Rein clones: use https://, ssh://, git://, file:// or git@host:path.`))
  }
  const args = ['clone', '--depth', '1', '--quiet', ...(options.ref ? ['--branch', options.ref] : []), '--', url, dest]
  const env = { ...childEnv(options.env ?? process.env), GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: 'true' }
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { env, stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4000) stderr += chunk.toString('utf8')
    })
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? CLONE_TIMEOUT_MS)
    child.on('error', (error) => {
      clearTimeout(timer)
      reject(new Error(`git could not be started to clone ${url} (${(error as NodeJS.ErrnoException).code ?? error.message}); install git and try again.`))
    })
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      if (code === 0) return resolve()
      const why = signal === 'SIGKILL' ? `it took longer than ${Math.round((options.timeoutMs ?? CLONE_TIMEOUT_MS) / 1000)} s` : stderr.trim().split('\n').pop() || `git exited with ${code}`
      reject(new Error(`Cloning ${url} failed: ${why.replace(/\.$/, '')}.`))
    })
  })
}

/** The URLs Rein clones. */
const CLONEABLE = /^(?:(?:https?|ssh|git|file):\/\/[^\s]+|[\w.-]+@[\w.-]+:[^\s-][^\s]*)$/i

/** Whether `source` names a git repository rather than a folder: a URL, `git@host:path`, or a path ending in `.git`. */
export function isGitSource(source: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(source) || /^[\w.-]+@[\w.-]+:/.test(source) || source.endsWith('.git')
}
