import type { Pool, PoolClient } from 'pg'
import { SessionError } from '../errors.js'
import { inTransaction } from './connection.js'

/**
 * The store's schema, as numbered steps applied in order on first use. A step is never edited once released: a
 * change is a new step. `rein_schema` records which steps a database has; concurrent first uses are serialized by
 * a transaction-scoped advisory lock, so each step runs exactly once.
 *
 * Records are kept as `json`, not `jsonb`: `json` keeps the text exactly as written (key order included), and the
 * log is replayed byte-exact (request digests are checked against it). `jsonb` would reorder keys.
 */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE rein_sessions (
     id text PRIMARY KEY,
     cwd text NOT NULL,
     cwd_key text NOT NULL,
     created_at double precision NOT NULL,
     updated_at double precision NOT NULL,
     header json NOT NULL,
     title text NOT NULL DEFAULT '',
     turns integer NOT NULL DEFAULT 0,
     bytes bigint NOT NULL,
     records integer NOT NULL,
     summary jsonb NOT NULL,
     parent_id text,
     parent_seq integer
   );
   CREATE INDEX rein_sessions_newest ON rein_sessions (updated_at DESC, id);
   CREATE INDEX rein_sessions_cwd_newest ON rein_sessions (cwd_key, updated_at DESC, id);
   CREATE TABLE rein_events (
     session_id text NOT NULL REFERENCES rein_sessions (id) ON DELETE CASCADE,
     seq integer NOT NULL,
     record json NOT NULL,
     PRIMARY KEY (session_id, seq)
   );
   -- Large records are compressed out of line (TOAST); lz4 (PostgreSQL 14+, when built with it) reads back about
   -- twice as fast as the default pglz, which is most of a resume's time in the server. Older servers keep pglz.
   DO $$ BEGIN
     IF current_setting('server_version_num')::integer >= 140000 THEN
       EXECUTE 'ALTER TABLE rein_events ALTER COLUMN record SET COMPRESSION lz4';
     END IF;
   EXCEPTION WHEN feature_not_supported OR invalid_parameter_value THEN NULL;
   END $$;
   CREATE TABLE rein_leases (
     session_id text PRIMARY KEY REFERENCES rein_sessions (id) ON DELETE CASCADE,
     token uuid NOT NULL,
     owner jsonb NOT NULL,
     expires_at timestamptz NOT NULL
   );`,
  // The fleet's batches (src/fleet/queue.ts): one row per task, the job that carries it and its result.
  `CREATE TABLE rein_batch_tasks (
     batch text NOT NULL,
     task_id text NOT NULL,
     session_id text NOT NULL UNIQUE,
     job_id uuid NOT NULL UNIQUE,
     task jsonb NOT NULL,
     status text NOT NULL DEFAULT 'queued',
     result jsonb,
     attempts integer NOT NULL DEFAULT 0,
     worker text,
     created_at timestamptz NOT NULL DEFAULT now(),
     updated_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (batch, task_id)
   );
   CREATE INDEX rein_batch_tasks_running ON rein_batch_tasks (status) WHERE status = 'running';
   CREATE TABLE rein_workers (
     id text PRIMARY KEY,
     host text NOT NULL,
     pid integer NOT NULL,
     concurrency integer NOT NULL,
     started_at timestamptz NOT NULL DEFAULT now(),
     seen_at timestamptz NOT NULL DEFAULT now()
   );`,
]

/** Any 64-bit number works as the advisory lock key; this one spells "rein" and is used for nothing else. */
const MIGRATION_LOCK = 0x7265696e

/** Brings the database's schema up to `MIGRATIONS.length`, or refuses a database written by a newer Rein. */
export async function migrate(pool: Pool, location: string): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK])
    await client.query('CREATE TABLE IF NOT EXISTS rein_schema (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())')
    const current = await schemaVersion(client)
    if (current > MIGRATIONS.length) {
      throw new SessionError(
        'version',
        `the session store at ${location} has schema version ${current}, but this Rein knows versions up to ${MIGRATIONS.length}; upgrade Rein.`,
      )
    }
    for (let version = current + 1; version <= MIGRATIONS.length; version++) {
      await client.query(MIGRATIONS[version - 1])
      await client.query('INSERT INTO rein_schema (version) VALUES ($1)', [version])
    }
  })
}

async function schemaVersion(client: PoolClient): Promise<number> {
  const result = await client.query<{ version: number | null }>('SELECT max(version) AS version FROM rein_schema')
  return result.rows[0]?.version ?? 0
}
