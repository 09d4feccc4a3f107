import { useEffect, useMemo, useState } from 'preact/hooks'
import { get, post } from './api'
import { percent, usd, when } from './format'
import type { Info, SessionRow } from './types'

/** Every session the server may show, newest first, refreshed every few seconds; filter, search, and start one. */
export function SessionList({ info }: { info: Info }) {
  const [rows, setRows] = useState<SessionRow[]>()
  const [error, setError] = useState('')
  const [query, setQuery] = useState('')
  const [state, setState] = useState('any')
  const [dir, setDir] = useState(info.root)
  const [starting, setStarting] = useState(false)

  useEffect(() => {
    let stop = false
    const load = (): void => {
      get<{ sessions: SessionRow[] }>('/api/sessions').then(
        (r) => !stop && setRows(r.sessions),
        (e: Error) => !stop && setError(e.message),
      )
    }
    load()
    const timer = setInterval(load, 3000)
    return () => {
      stop = true
      clearInterval(timer)
    }
  }, [])

  const shown = useMemo(() => {
    const q = query.trim().toLowerCase()
    return (rows ?? []).filter(
      (r) => (state === 'any' || r.state === state) && (!q || `${r.title} ${r.cwd} ${r.id} ${r.model}`.toLowerCase().includes(q)),
    )
  }, [rows, query, state])

  const start = async (event: Event): Promise<void> => {
    event.preventDefault()
    setStarting(true)
    setError('')
    try {
      const { id } = await post<{ id: string }>('/api/sessions', { cwd: dir })
      location.hash = `#/s/${id}`
    } catch (e) {
      setError((e as Error).message)
    } finally {
      setStarting(false)
    }
  }

  return (
    <section class="pad">
      <form class="row" onSubmit={start} aria-label="Start a session">
        <label>
          Directory <input name="cwd" value={dir} onInput={(e) => setDir(e.currentTarget.value)} size={50} />
        </label>
        <button type="submit" disabled={starting}>
          New session
        </button>
      </form>
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
      </div>
      {!rows ? (
        <p>Loading sessions…</p>
      ) : !shown.length ? (
        <p>{rows.length ? 'No session matches.' : 'No sessions yet: start one above.'}</p>
      ) : (
        <table class="sessions">
          <thead>
            <tr>
              <th scope="col">Title</th>
              <th scope="col">Workspace</th>
              <th scope="col">Model</th>
              <th scope="col">State</th>
              <th scope="col">Turns</th>
              <th scope="col">Cost</th>
              <th scope="col">Cache hit</th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((r) => (
              <tr key={r.id} data-session={r.id}>
                <td>
                  <a href={`#/s/${r.id}`}>{r.title || r.id.slice(0, 8)}</a>
                </td>
                <td class="muted">{r.cwd}</td>
                <td>{r.model || '–'}</td>
                <td>
                  <span class={`state ${r.state}`}>{r.state}</span>
                </td>
                <td>{r.turns}</td>
                <td>{usd(r.cost)}</td>
                <td>{percent(r.cacheHitShare)}</td>
                <td>{when(r.updatedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}
