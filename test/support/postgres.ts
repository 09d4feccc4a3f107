import type { TestProject } from 'vitest/node'
// The one implementation of the private server, shared with the benchmarks.
import { postgresBin, startPostgres } from '../../bench/pg-server.mjs'

declare module 'vitest' {
  export interface ProvidedContext {
    /** A superuser URL of the suite's own PostgreSQL server, or '' when none could be started (local runs only). */
    postgresUrl: string
  }
}

/**
 * Vitest global setup: starts a private PostgreSQL server (Debian's `initdb` + `pg_ctl`) on a temporary directory
 * and a free loopback port for the store and queue tests, and stops it after the suite. With `CI=true` a missing
 * PostgreSQL fails the suite; locally those tests skip with a printed notice.
 */
export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  if (!postgresBin()) {
    const sentence = "PostgreSQL is not installed (no initdb found); install Debian's postgresql package to run the PostgreSQL store and fleet tests."
    if (process.env.CI === 'true') throw new Error(sentence)
    process.stderr.write(`notice: ${sentence} They are skipped.\n`)
    project.provide('postgresUrl', '')
    return undefined
  }
  const server = await startPostgres()
  project.provide('postgresUrl', server.url)
  return () => server.stop()
}
