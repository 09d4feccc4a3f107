import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { inject } from 'vitest'

/** The suite's PostgreSQL server (see postgres.ts), or '' when none runs; tests that need it skip on ''. */
export const postgresUrl: string = inject('postgresUrl')

/** A new, empty database on the suite's server, for one test's isolation; its URL. */
export async function freshDatabase(): Promise<string> {
  const name = `rein_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: postgresUrl })
  await admin.connect()
  try {
    await admin.query(`CREATE DATABASE ${name}`)
  } finally {
    await admin.end()
  }
  const url = new URL(postgresUrl)
  url.pathname = `/${name}`
  return url.toString()
}

/** Runs statements on a database as the superuser (to simulate damage or another machine's actions). */
export async function onDatabase<T>(url: string, body: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await body(client)
  } finally {
    await client.end()
  }
}
