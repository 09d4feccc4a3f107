import { execFileSync, spawnSync } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import type { TestProject } from 'vitest/node'

declare module 'vitest' {
  export interface ProvidedContext {
    /** A superuser URL of the suite's own PostgreSQL server, or '' when none could be started (local runs only). */
    postgresUrl: string
  }
}

/**
 * Vitest global setup: starts a private PostgreSQL server (Debian's `initdb` + `pg_ctl`) on a temporary directory
 * and a free loopback port for the store and queue tests, and stops it after the suite. Postgres refuses to run as
 * root, so as root the server runs as the `postgres` system user. With `CI=true` a missing PostgreSQL fails the
 * suite; locally those tests skip with a printed notice.
 */
export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  const bin = postgresBin()
  if (!bin) {
    const sentence = 'PostgreSQL is not installed (no initdb found); install Debian\'s postgresql package to run the PostgreSQL store and fleet tests.'
    if (process.env.CI === 'true') throw new Error(sentence)
    process.stderr.write(`notice: ${sentence} They are skipped.\n`)
    project.provide('postgresUrl', '')
    return undefined
  }
  const dir = mkdtempSync(join(tmpdir(), 'pg-rein-'))
  const data = join(dir, 'data')
  const asRoot = userInfo().uid === 0
  if (asRoot) chownSync(dir, uid('postgres'), gid('postgres'))
  const run = (command: string, args: string[]): void => {
    const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, command), ...args]] : [join(bin, command), args]
    const result = spawnSync(file, argv, { stdio: 'pipe', encoding: 'utf8' })
    if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr || result.stdout}`)
  }
  run('initdb', ['-D', data, '-U', 'rein', '--auth=trust', '--no-sync', '-E', 'UTF8'])
  const port = await freePort()
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`
  run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start'])
  project.provide('postgresUrl', `postgres://rein@127.0.0.1:${port}/postgres`)
  return () => {
    try {
      run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

/** The directory holding `initdb` and `pg_ctl`: Debian keeps them under /usr/lib/postgresql/<version>/bin. */
function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql'
  if (existsSync(root)) {
    const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a))
    for (const version of versions) if (existsSync(join(root, version, 'bin', 'initdb'))) return join(root, version, 'bin')
  }
  try {
    const found = execFileSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).trim()
    return found ? found.slice(0, found.lastIndexOf('/')) : undefined
  } catch {
    // Not on PATH either: the caller reports PostgreSQL as missing.
    return undefined
  }
}

function uid(user: string): number {
  return Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim())
}

function gid(user: string): number {
  return Number(execFileSync('id', ['-g', user], { encoding: 'utf8' }).trim())
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}
