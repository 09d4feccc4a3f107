// The SIGKILL loop (not a bench itself): kills `rein -p` at random points of a multi-step scripted session with slow
// tools, then checks that every log loads, resumes to an answer and verifies, and that no durable event was lost.
// Used by bench/kill-resume.bench.mjs (200 kills) and test/cli/kill-loop.test.ts (20 kills).
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CLI } from './run-print.mjs'
import { startMockModel } from '../dist/llm/mock/server.js'

const STEPS = 4

function script() {
  const steps = Array.from({ length: STEPS }, (_, i) => ({
    toolCalls: [{ name: 'bash', arguments: { command: `sleep 0.1; echo step ${i}` } }],
  }))
  return [...steps, { text: 'All steps are done.', repeat: true }]
}

/**
 * @param {string[]} args
 * @param {{ cwd: string, env: NodeJS.ProcessEnv }} options
 * @returns {Promise<{ code: number | null, signal: NodeJS.Signals | null, stdout: string, stderr: string, child: import('node:child_process').ChildProcess }>}
 */
function run(args, { cwd, env }) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr, child }))
  })
}

/** The complete lines of the only session log under `home`, or undefined when none was created yet. */
/**
 * @param {string} home
 * @returns {{ id: string, lines: string[] } | undefined}
 */
function logOf(home) {
  const root = join(home, 'sessions')
  let dirs
  try {
    dirs = readdirSync(root, { withFileTypes: true }).filter((d) => d.isDirectory())
  } catch {
    return undefined
  }
  for (const dir of dirs) {
    const file = readdirSync(join(root, dir.name)).find((f) => f.endsWith('.jsonl'))
    if (!file) continue
    const text = readFileSync(join(root, dir.name, file), 'utf8')
    const complete = text.slice(0, text.lastIndexOf('\n') + 1)
    return { id: file.slice(0, -'.jsonl'.length), lines: complete.split('\n').filter(Boolean) }
  }
  return undefined
}

/**
 * Runs `kills` iterations; each starts a session, SIGKILLs it a random delay within `windowMs` after its first model
 * request, resumes it and verifies it. Returns the figures; `problems` lists every iteration that broke a promise.
 */
/**
 * @param {{ kills: number, windowMs?: number, random?: () => number }} options
 * @returns {Promise<{ kills: number, logs: number, resumed: number, verified: number, eventsLost: number, problems: string[] }>}
 */
export async function killLoop({ kills, windowMs = 1500, random = Math.random }) {
  /** @type {Awaited<ReturnType<typeof killLoop>>} */
  const figures = { kills: 0, logs: 0, resumed: 0, verified: 0, eventsLost: 0, problems: [] }
  const base = mkdtempSync(join(tmpdir(), 'rein-kill-loop-'))
  for (let i = 0; i < kills; i++) {
    const cwd = join(base, `p${i}`)
    const home = join(base, `h${i}`)
    mkdirSync(cwd, { recursive: true })
    const mock = await startMockModel({ script: script() })
    const env = { ...process.env, DEEPSEEK_BASE_URL: mock.url, DEEPSEEK_API_KEY: 'kill-loop', REIN_HOME: home, NO_COLOR: '1' }
    try {
      const child = spawn(process.execPath, [CLI, '-p', 'run the steps', '--permission-mode', 'bypass'], { cwd, env, stdio: 'ignore' })
      let exited = false
      const closed = new Promise((resolve) => child.on('close', resolve)).then(() => (exited = true))
      // The window opens at the session's first request, not at spawn: on a loaded machine start-up alone can take
      // longer than the window, and every kill would land before there is a log to resume.
      for (const started = Date.now(); !mock.requests.length && !exited && Date.now() - started < 60_000; ) {
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
      await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * windowMs)))
      child.kill('SIGKILL')
      await closed
      figures.kills++
      const before = logOf(home)
      if (!before) continue
      figures.logs++
      const resumed = await run(['-p', 'continue', '--resume', before.id, '--permission-mode', 'bypass'], { cwd, env })
      if (resumed.code !== 0 || !resumed.stdout.includes('All steps are done.')) {
        figures.problems.push(`kill ${i}: resume exited ${resumed.code}: ${resumed.stderr.trim()}`)
        continue
      }
      figures.resumed++
      const after = logOf(home)
      if (!after) throw new Error(`kill ${i}: the resumed session left no log`)
      const lost = before.lines.filter((line, k) => after.lines[k] !== line).length
      figures.eventsLost += lost
      if (lost) figures.problems.push(`kill ${i}: ${lost} durable lines changed or vanished`)
      const verify = await run(['sessions', 'verify', before.id], { cwd, env })
      if (verify.code === 0) figures.verified++
      else figures.problems.push(`kill ${i}: verify exited ${verify.code}: ${(verify.stdout + verify.stderr).trim()}`)
    } finally {
      await mock.close()
    }
  }
  return figures
}
