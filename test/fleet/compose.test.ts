import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { WORKER_CONNECTIONS } from '../../src/fleet/worker.js'

interface Service {
  command?: string[]
  ports?: string[]
  profiles?: string[]
  environment?: Record<string, string>
}
const compose = parse(readFileSync(join(import.meta.dirname, '../../deploy/compose.yaml'), 'utf8')) as { services: Record<string, Service> }
const workers = Object.entries(compose.services).filter(([, s]) => s.command?.[0] === 'worker')

/** Connections a task's `rein -p` child may hold (its store pool), docs/fleet.md "Connections". */
const PER_TASK = 8

describe('the Docker Compose deployment (deploy/compose.yaml)', () => {
  it('starts two workers whose command lines this Rein accepts', async () => {
    expect(workers.map(([name]) => name)).toEqual(['worker-1', 'worker-2'])
    const box = sandbox()
    for (const [, service] of workers) {
      // A store that is not PostgreSQL is refused after the flags are parsed: an unknown flag would fail first.
      const run = await runCli(service.command!, { cwd: box.cwd, env: cliEnv({ home: box.home, extra: { REIN_STORE: join(box.root, 'store') } }) })
      expect(run.stderr).toBe('rein: a worker takes tasks from a PostgreSQL store; pass --store postgres://… or set REIN_STORE.\n')
      expect(run.code).toBe(2)
    }
  })

  it("gives the database enough connections for both workers at full concurrency, and publishes metrics on loopback only", () => {
    const db = compose.services.db!
    const max = Number(/max_connections=(\d+)/.exec(db.command!.join(' '))?.[1])
    const perWorker = Object.values(WORKER_CONNECTIONS).reduce((a, b) => a + b, 0)
    const needed = workers.reduce((sum, [, s]) => sum + perWorker + Number(s.command![s.command!.indexOf('--concurrency') + 1]) * PER_TASK, 0)
    expect(max).toBeGreaterThanOrEqual(needed)
    for (const [, s] of workers) {
      expect(s.command).toEqual(expect.arrayContaining(['--metrics-port', '--metrics-host', '0.0.0.0']))
      expect(s.ports!.every((p) => p.startsWith('127.0.0.1:'))).toBe(true)
    }
  })
})
