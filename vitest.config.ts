import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { defineConfig } from 'vitest/config'

const TESTS = ['test/**/*.test.ts', 'test/**/*.test.tsx']

/**
 * The slow project: tests that start processes beyond the test itself — the built CLI, tmux, the ACP server, MCP
 * servers, hook commands, crash-and-kill runs. Named by place here, and any other test file that imports
 * `test/support/cli.ts` (the one way to the built CLI and `dist/`), directly or through other test files, or drives
 * tmux joins them, so a new end-to-end test lands here without being listed. Everything else is the fast project:
 * in-process, seconds in all, and it never needs a build (docs/testing.md).
 */
const SLOW_PLACES = [
  'test/cli/**/*.test.{ts,tsx}',
  'test/security/**/*.test.{ts,tsx}',
  'test/**/*e2e*.test.ts',
  'test/acp/transcript.test.ts',
  'test/mcp/{cli,http,listeners,published-server,stdio}.test.ts',
  'test/hooks/{extension,runner}.test.ts',
]

const CLI_HELPER = join(import.meta.dirname, 'test/support/cli.ts')

/** The test files that reach `test/support/cli.ts` through relative imports, or mention tmux. */
function startsProcesses(): string[] {
  const root = join(import.meta.dirname, 'test')
  const sources = new Map<string, string>()
  for (const file of readdirSync(root, { recursive: true, encoding: 'utf8' })) {
    if (/\.tsx?$/.test(file)) sources.set(join(root, file), readFileSync(join(root, file), 'utf8'))
  }
  const reaches = (file: string, seen: Set<string>): boolean => {
    if (file === CLI_HELPER) return true
    if (seen.has(file)) return false
    seen.add(file)
    for (const [, specifier] of (sources.get(file) ?? '').matchAll(/from '(\.{1,2}\/[^']+)'/g)) {
      const imported = resolve(dirname(file), specifier).replace(/\.js$/, '')
      if ([`${imported}.ts`, `${imported}.tsx`].some((candidate) => reaches(candidate, seen))) return true
    }
    return false
  }
  return [...sources.keys()]
    .filter((file) => /\.test\.tsx?$/.test(file))
    .filter((file) => /\btmux\b/.test(sources.get(file) ?? '') || reaches(file, new Set()))
    .map((file) => relative(import.meta.dirname, file))
}

const SLOW = [...SLOW_PLACES, ...startsProcesses()]
const VERIFY_ALL = 'test/support/verify-all.ts'
/** Starts a private PostgreSQL for the store and fleet tests (skips with a notice locally when none is installed). */
const POSTGRES = 'test/support/postgres.ts'

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Both cores: most files wait on child processes, the mock server or PostgreSQL, and the default (one fewer
    // than the cores) ran the suite file by file on this 2-core machine (docs/testing.md).
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'fast', include: TESTS, exclude: SLOW, globalSetup: [VERIFY_ALL, POSTGRES] } },
      // The slow project refuses to start on a missing or stale build, since its tests run dist/.
      { extends: true, test: { name: 'slow', include: SLOW, globalSetup: ['test/support/fresh-build.ts', VERIFY_ALL, POSTGRES] } },
    ],
  },
})
