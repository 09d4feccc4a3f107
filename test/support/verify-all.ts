import { readdirSync, readFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { requestDigests } from '../../src/frontend/session-requests.js'
import type { SessionEvent, SessionHeader } from '../../src/session/events.js'
import { isDamage, verifyEvents } from '../../src/session/verify.js'

/** How many projects of this run set verification up; the last teardown verifies, once, after every test. */
const run = ((globalThis as { reinVerifyAll?: { open: number; started: number } }).reinVerifyAll ??= { open: 0, started: Date.now() - 1000 })

/**
 * Vitest global setup of every project: after the whole run, every session log the suite's runs left in temporary
 * `rein-*` directories must pass `rein sessions verify` — structure, surface rules and every request digest
 * re-derived from the log — judged by the current source (vitest loads it), so the fast project needs no build.
 * Logs a test damaged on purpose are named `*.jsonl` too but do not load; they are told apart by having no request at
 * all or failing to parse, and skipped (the durability tests check those themselves).
 */
export default function setup(): () => void {
  run.open++
  return () => {
    if (--run.open > 0) return
    const started = run.started
    const failures: string[] = []
    let checked = 0
    for (const file of sessionFiles(started)) {
      const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean)
      let header: SessionHeader
      const events: SessionEvent[] = []
      try {
        header = JSON.parse(lines[0])
        for (const line of lines.slice(1)) events.push(JSON.parse(line))
      } catch {
        continue
      }
      if (header?.type !== 'session' || !events.some((e) => e.type === 'request/sent')) continue
      // A log whose last turn is open belongs to a run that was killed on purpose (and maybe never resumed) or is
      // still running: verify reports that as a note, not damage, and only damage fails the suite.
      const problems = [...verifyEvents(header, events), ...requestDigests(header, events)].filter(isDamage)
      checked++
      if (problems.length) failures.push(`${file}:\n${problems.map((p) => `  seq ${p.seq}: ${p.message}`).join('\n')}`)
    }
    if (failures.length) throw new Error(`rein sessions verify fails on ${failures.length} of ${checked} session logs the suite produced:\n${failures.join('\n')}`)
    process.stdout.write(`verify-all: ${checked} session logs produced by the suite pass verify (structure and request digests)\n`)
  }
}

function* sessionFiles(since: number): Generator<string> {
  const root = tmpdir()
  for (const name of readdirSync(root)) {
    if (!name.startsWith('rein')) continue
    const dir = join(root, name)
    try {
      if (!statSync(dir).isDirectory() || statSync(dir).mtimeMs < since) continue
    } catch {
      continue
    }
    yield* walk(dir, 0)
  }
}

function* walk(dir: string, depth: number): Generator<string> {
  if (depth > 5) return
  let entries
  try {
    entries = readdirSync(dir, { withFileTypes: true })
  } catch {
    return
  }
  for (const entry of entries) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) yield* walk(path, depth + 1)
    else if (entry.name.endsWith('.jsonl') && dir.includes(`${'/'}sessions${'/'}`)) yield path
  }
}
