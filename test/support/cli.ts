import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdtempSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

/**
 * The one way tests reach the build: every test that starts the built CLI (or loads `dist/`) does it through this
 * file, directly or through a helper that imports it, and so runs in the slow project, whose set-up refuses a
 * missing or stale build (vitest.config.ts, docs/testing.md). `npm test` builds before vitest runs.
 */
export const DIST = resolve(import.meta.dirname, '../../dist')

/** The built CLI. */
export const CLI = join(DIST, 'cli', 'main.js')

export interface CliResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

/** A temporary workspace and REIN_HOME for one test. */
export function sandbox(): { root: string; cwd: string; home: string } {
  const root = mkdtempSync(join(tmpdir(), 'rein-e2e-'))
  const cwd = join(root, 'project')
  const home = join(root, 'home')
  mkdirSync(cwd, { recursive: true })
  mkdirSync(home, { recursive: true })
  return { root, cwd, home }
}

/** The environment a test run sees: the mock's URL, a throwaway key, a private REIN_HOME, no inherited key. */
export function cliEnv(options: { url?: string; home: string; key?: string | null; extra?: Record<string, string> }): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, REIN_HOME: options.home, HOME: options.home, NO_COLOR: '1' }
  delete env.DEEPSEEK_API_KEY
  delete env.DEEPSEEK_BASE_URL
  if (options.url) env.DEEPSEEK_BASE_URL = options.url
  if (options.key !== null) env.DEEPSEEK_API_KEY = options.key ?? 'sk-test-not-a-real-key'
  return { ...env, ...options.extra }
}

/** Starts `rein …` with piped standard streams; the caller ends stdin (a `-p` run waits for a pipe's end). */
export function spawnCli(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [CLI, ...args], { cwd: options.cwd, env: options.env, stdio: 'pipe' })
}

/** Runs `rein …` to completion synchronously, with no standard input. */
export function runCliSync(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Omit<CliResult, 'signal'> {
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

export function runCli(
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; input?: string; timeoutMs?: number },
): Promise<CliResult> {
  return new Promise((resolveRun, reject) => {
    const child = spawnCli(args, options)
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`rein ${args.join(' ')} did not finish in time; stderr: ${stderr}`))
    }, options.timeoutMs ?? 30_000)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolveRun({ code, signal, stdout, stderr })
    })
    if (options.input !== undefined) child.stdin.end(options.input)
    else child.stdin.end()
  })
}
