import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { defineConfig } from 'vitest/config'

const TESTS = ['test/**/*.test.ts', 'test/**/*.test.tsx']

/**
 * The slow project: tests that start processes beyond the test itself — the built CLI, tmux, the ACP server, MCP
 * servers, hook commands, crash-and-kill runs. Named by place here, and any other test file that imports
 * `test/support/cli.ts` (which runs the built CLI) or drives tmux joins them, so a new end-to-end test lands here
 * without being listed. Everything else is the fast project: in-process, seconds in all (docs/testing.md).
 */
const SLOW_PLACES = [
  'test/cli/**',
  'test/security/**',
  'test/**/*e2e*.test.ts',
  'test/acp/transcript.test.ts',
  'test/mcp/{cli,http,listeners,published-server,stdio}.test.ts',
  'test/hooks/{extension,runner}.test.ts',
  'test/session/durability.test.ts',
]

function startsProcesses(): string[] {
  const root = join(import.meta.dirname, 'test')
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.test\.tsx?$/.test(file))
    .map((file) => `test/${file}`)
    .filter((file) => /support\/cli\.js|\btmux\b/.test(readFileSync(join(import.meta.dirname, file), 'utf8')))
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
    projects: [
      { extends: true, test: { name: 'fast', include: TESTS, exclude: SLOW, globalSetup: [VERIFY_ALL, POSTGRES] } },
      // The slow project refuses to start on a missing or stale build, since its tests run dist/.
      { extends: true, test: { name: 'slow', include: SLOW, globalSetup: ['test/support/fresh-build.ts', VERIFY_ALL, POSTGRES] } },
    ],
  },
})
