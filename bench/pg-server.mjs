// A private PostgreSQL server for the store and fleet benchmarks and tests (not a benchmark itself: the runner only
// picks up *.bench.mjs). Debian's initdb + pg_ctl on a temporary directory and a free loopback port; as root the
// server runs as the `postgres` system user, since PostgreSQL refuses to run as root.
import { execFileSync, spawnSync } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'

/** The directory holding initdb and pg_ctl (Debian: /usr/lib/postgresql/<version>/bin), or undefined. */
export function postgresBin() {
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

/**
 * Starts a throwaway server tuned for tests (no fsync: a crash loses the data, which a test throws away anyway;
 * pass `durable: true` to keep fsync on, as the benchmarks do). Resolves to its superuser URL, a restart and a stop
 * function.
 */
export async function startPostgres({ durable = false, maxConnections = 200 } = {}) {
  const bin = postgresBin()
  if (!bin) throw new Error("PostgreSQL is not installed (no initdb found); install Debian's postgresql package.")
  const dir = mkdtempSync(join(tmpdir(), 'pg-rein-'))
  const data = join(dir, 'data')
  const asRoot = userInfo().uid === 0
  if (asRoot) {
    const id = (/** @type {string} */ flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim())
    chownSync(dir, id('-u'), id('-g'))
  }
  /**
   * @param {string} command
   * @param {string[]} args
   */
  const run = (command, args) => {
    const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, command), ...args]] : [join(bin, command), args]
    const result = spawnSync(file, argv, { stdio: 'pipe', encoding: 'utf8' })
    if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr || result.stdout}`)
  }
  run('initdb', ['-D', data, '-U', 'rein', '--auth=trust', '--no-sync', '-E', 'UTF8'])
  const port = await freePort()
  const fast = durable ? '' : ' -c fsync=off -c synchronous_commit=off -c full_page_writes=off'
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c max_connections=${maxConnections}${fast}`
  run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start'])
  return {
    url: `postgres://rein@127.0.0.1:${port}/postgres`,
    /** Restarts the server as an operator would (fast shutdown: every connection is closed), on the same port. */
    restart: () => run('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-m', 'fast', '-w', 'restart']),
    stop: () => {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'])
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    },
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no free port'))))
    })
  })
}
