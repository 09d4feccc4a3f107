import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

/**
 * Vitest global setup: after the whole suite, every session log the suite's runs left in temporary `rein-*`
 * directories must pass `rein sessions verify` — structure, surface rules and every request digest re-derived from
 * the log. Logs a test damaged on purpose are named `*.jsonl` too but do not load; they are told apart by having no
 * request at all or failing to parse, and skipped (the durability tests check those themselves).
 */
export default function setup(): () => Promise<void> {
  const started = Date.now() - 1000
  return async () => {
    const dist = resolve(import.meta.dirname, '../../dist')
    requireFreshBuild(dist, resolve(import.meta.dirname, '../../src'))
    const { verifyEvents, isDamage } = await import(pathToFileURL(join(dist, 'session/verify.js')).href)
    const { requestDigests } = await import(pathToFileURL(join(dist, 'cli/sessions/requests.js')).href)
    const failures: string[] = []
    let checked = 0
    for (const file of sessionFiles(started)) {
      const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean)
      let header
      const events = []
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
      if (problems.length) failures.push(`${file}:\n${problems.map((p: { seq: number; message: string }) => `  seq ${p.seq}: ${p.message}`).join('\n')}`)
    }
    if (failures.length) throw new Error(`rein sessions verify fails on ${failures.length} of ${checked} session logs the suite produced:\n${failures.join('\n')}`)
    process.stdout.write(`verify-all: ${checked} session logs produced by the suite pass verify (structure and request digests)\n`)
  }
}

/**
 * Throws unless `dist` holds a build at least as new as every file under `src`: verifying with a stale or missing
 * build would check the logs against old rules, or not at all, and pass silently.
 */
function requireFreshBuild(dist: string, src: string): void {
  const built = join(dist, 'session/verify.js')
  if (!existsSync(built)) throw new Error(`verify-all: ${built} is missing; build first with \`npm run build\`.`)
  const builtAt = statSync(built).mtimeMs
  const newest = newestSource(src)
  if (newest.mtimeMs > builtAt) {
    throw new Error(`verify-all: dist/ is older than ${newest.path}; rebuild with \`npm run build\` and run the suite again.`)
  }
}

function newestSource(dir: string): { path: string; mtimeMs: number } {
  let newest = { path: dir, mtimeMs: 0 }
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    const candidate = entry.isDirectory() ? newestSource(path) : { path, mtimeMs: statSync(path).mtimeMs }
    if (candidate.mtimeMs > newest.mtimeMs) newest = candidate
  }
  return newest
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
