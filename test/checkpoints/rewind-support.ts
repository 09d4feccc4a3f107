import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { join } from 'node:path'
import type { SessionEvent, SessionHeader } from '../../src/session/events.js'
import { spawn } from 'node:child_process'
import { CLI, cliEnv, runCli, type CliResult } from '../support/cli.js'

/** A test's workspace, REIN_HOME and mock URL. */
export interface RewindBox {
  cwd: string
  home: string
  url: string
}

/** Runs one prompt with every tool allowed, resuming `resume` when given; fails the test on a non-zero exit. */
export async function prompt(box: RewindBox, text: string, resume?: string): Promise<CliResult> {
  const r = await runCli(['-p', text, '--permission-mode', 'bypass', ...(resume ? ['--resume', resume] : [])], {
    cwd: box.cwd,
    env: cliEnv({ url: box.url, home: box.home }),
  })
  if (r.code !== 0) throw new Error(`rein -p ${text} exited ${r.code}: ${r.stderr}`)
  return r
}

/** `rein <args>` in the workspace, without a terminal. */
export function rein(box: RewindBox, args: string[], input?: string): Promise<CliResult> {
  return runCli(args, { cwd: box.cwd, env: cliEnv({ url: box.url, home: box.home }), input })
}

/** Every stored session: id, header and events, oldest first. */
export function sessions(home: string): { id: string; header: SessionHeader; events: SessionEvent[] }[] {
  const root = join(home, 'sessions')
  const found = []
  for (const dir of readdirSync(root)) {
    for (const file of readdirSync(join(root, dir)).filter((f) => f.endsWith('.jsonl'))) {
      const lines = readFileSync(join(root, dir, file), 'utf8').split('\n').filter(Boolean)
      const header = JSON.parse(lines[0]) as SessionHeader
      found.push({ id: header.id, header, events: lines.slice(1).map((l) => JSON.parse(l) as SessionEvent) })
    }
  }
  return found.sort((a, b) => a.header.createdAt - b.header.createdAt)
}

export function sessionLog(home: string, id: string): SessionEvent[] {
  const found = sessions(home).find((s) => s.id === id)
  if (!found) throw new Error(`no session ${id} under ${home}`)
  return found.events
}

/** The workspace's files as path → content (symlinks as `-> target`), skipping the directories named in `skip`. */
export function tree(dir: string, skip: readonly string[] = ['.git', 'node_modules'], prefix = ''): Record<string, string> {
  const out: Record<string, string> = {}
  for (const entry of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name
    if (skip.includes(rel)) continue
    if (entry.isSymbolicLink()) out[rel] = `-> ${readlinkSync(join(dir, rel))}`
    else if (entry.isDirectory()) Object.assign(out, tree(dir, skip, rel))
    else out[rel] = readFileSync(join(dir, rel)).toString('base64')
  }
  return out
}

/** `rein <args>` under a pseudo-terminal (util-linux `script`), typing `input`; the output is what the terminal showed. */
export function inTerminal(box: RewindBox, args: string[], input: string): Promise<{ code: number | null; output: string }> {
  const command = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: box.cwd, env: cliEnv({ url: box.url, home: box.home }) })
    let output = ''
    child.stdout.on('data', (d: Buffer) => (output += d.toString()))
    child.stderr.on('data', (d: Buffer) => (output += d.toString()))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, output }))
    child.stdin.write(input)
  })
}
