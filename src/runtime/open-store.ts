import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { readSettingsFile } from '../config/settings.js'
import { SessionError } from '../store/errors.js'
import { JsonlStore } from '../store/jsonl-store.js'
import type { SessionStore } from '../store/store.js'

/** Where a store choice came from, for the sentence that refuses a bad one. */
export type StoreSource = '--store' | 'REIN_STORE' | 'store.url in settings'

/**
 * The store a command uses: `--store`, else `$REIN_STORE`, else `store.url` in the user's settings
 * (`$REIN_HOME/settings.json`), else the JSONL store under `home`. `jsonl` (or empty) names the JSONL store;
 * `postgres://…` or `postgresql://…` a PostgreSQL database. A project's settings never choose the store: a
 * workspace must not send session logs elsewhere.
 */
export function storeChoice(options: { home: string; env?: NodeJS.ProcessEnv; flag?: string }): { url: string; source?: StoreSource } {
  const env = options.env ?? process.env
  if (options.flag !== undefined) return { url: options.flag, source: '--store' }
  if (env.REIN_STORE) return { url: env.REIN_STORE, source: 'REIN_STORE' }
  const userFile = join(options.home, 'settings.json')
  const url = existsSync(userFile) ? (readSettingsFile(userFile) as { store?: { url?: unknown } }).store?.url : undefined
  return typeof url === 'string' && url ? { url, source: 'store.url in settings' } : { url: 'jsonl' }
}

/** True when `url` names a PostgreSQL database. */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url)
}

/** Opens the chosen store. The PostgreSQL driver is loaded only when a database is named. */
export async function openStore(options: { home: string; env?: NodeJS.ProcessEnv; flag?: string }): Promise<SessionStore> {
  const choice = storeChoice(options)
  return openStoreAt(choice.url, options.home, choice.source)
}

export async function openStoreAt(url: string, home: string, source?: StoreSource): Promise<SessionStore> {
  const trimmed = url.trim()
  if (trimmed === '' || trimmed === 'jsonl') return new JsonlStore(home)
  if (isPostgresUrl(trimmed)) {
    const { PostgresStore } = await import('../store/postgres/store.js')
    return new PostgresStore(trimmed, staleMs(process.env))
  }
  throw new SessionError(
    'unreadable',
    `${source ?? 'the store'} names "${trimmed.slice(0, 40)}", which is not a store; use jsonl or a postgres://user@host:5432/database URL.`,
  )
}

/** Closes a store's connections, when it has any (the PostgreSQL store); the JSONL store holds none. */
export async function closeStore(store: SessionStore): Promise<void> {
  const closable = store as SessionStore & { close?: () => Promise<void> }
  if (typeof closable.close === 'function') await closable.close()
}

/** `REIN_LEASE_STALE_MS` (a whole number of ms, for tests and slow links), else the store's default. */
function staleMs(env: NodeJS.ProcessEnv): number | undefined {
  const value = Number(env.REIN_LEASE_STALE_MS)
  return Number.isInteger(value) && value > 0 ? value : undefined
}
