import { existsSync, readdirSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'

/**
 * Vitest global setup of the slow project, whose tests run the built CLI: before any test starts, throws unless
 * `dist/` holds a build at least as new as every file under `src/`. Running end-to-end tests against a missing or
 * stale build would test old code, or nothing, and could pass silently. `npm test` builds first.
 */
export default function setup(): void {
  const root = resolve(import.meta.dirname, '../..')
  requireFreshBuild(join(root, 'dist'), join(root, 'src'))
}

export function requireFreshBuild(dist: string, src: string): void {
  const built = join(dist, 'cli', 'main.js')
  if (!existsSync(built)) throw new Error(`${built} is missing, so the end-to-end tests have no CLI to run; build first with \`npm run build\` (npm test does).`)
  const builtAt = statSync(built).mtimeMs
  const newest = newestSource(src)
  if (newest.mtimeMs > builtAt) {
    throw new Error(`dist/ is older than ${newest.path}, so the end-to-end tests would run old code; rebuild with \`npm run build\` (npm test does) and run them again.`)
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
