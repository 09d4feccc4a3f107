import { useMemo, useState } from 'preact/hooks'
import { SessionTable } from './SessionTable'
import type { SessionRow } from './types'

/**
 * Every session the server may show, newest first (kept current over the list stream by `useListing`): search,
 * filter by state, and archived ones on request. New sessions start from the sidebar.
 */
export function SessionList({ rows, error }: { rows?: SessionRow[]; error: string }) {
  const [query, setQuery] = useState('')
  const [state, setState] = useState('any')
  const [archived, setArchived] = useState(false)

  const shown = useMemo(() => {
    const q = query.trim().toLowerCase()
    return (rows ?? []).filter(
      (r) =>
        (archived || !r.archived) &&
        (state === 'any' || r.state === state) &&
        (!q || `${r.title} ${r.cwd} ${r.id} ${r.model}`.toLowerCase().includes(q)),
    )
  }, [rows, query, state, archived])

  return (
    <section class="pad">
      <h1 class="page-title">Sessions</h1>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <div class="row">
        <label>
          Search <input type="search" value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
        </label>
        <label>
          State{' '}
          <select value={state} onChange={(e) => setState(e.currentTarget.value)}>
            <option value="any">any</option>
            <option value="running">running</option>
            <option value="idle">idle</option>
            <option value="interrupted">interrupted</option>
          </select>
        </label>
        <label>
          <input type="checkbox" checked={archived} onChange={(e) => setArchived(e.currentTarget.checked)} /> Archived too
        </label>
      </div>
      {!rows ? (
        <p>Loading sessions…</p>
      ) : !shown.length ? (
        <p>{rows.length ? 'No session matches.' : 'No sessions yet: start one with New session.'}</p>
      ) : (
        <SessionTable rows={shown} />
      )}
    </section>
  )
}
