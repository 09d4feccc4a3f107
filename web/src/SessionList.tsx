import { useEffect, useMemo, useState } from 'preact/hooks'
import { getIfChanged, post } from './api'
import { SessionTable } from './SessionTable'
import type { Info, SessionRow } from './types'

/** Every session the server may show, newest first, revalidated every few seconds; filter, search, and start one. */
export function SessionList({ info }: { info: Info }) {
  const [rows, setRows] = useState<SessionRow[]>()
  const [error, setError] = useState('')
  const [query, setQuery] = useState('')
  const [state, setState] = useState('any')
  const [dir, setDir] = useState(info.root)
  const [starting, setStarting] = useState(false)

  useEffect(() => {
    let stop = false
    let etag: string | undefined
    // Re-asked every few seconds with the last listing's ETag: an unchanged listing comes back as a bodiless 304.
    const load = (): void => {
      getIfChanged<{ sessions: SessionRow[] }>('/api/sessions', etag).then(
        (r) => {
          if (stop || !r) return
          etag = r.etag
          setRows(r.value.sessions)
        },
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
      <h1 class="page-title">Sessions</h1>
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
        <SessionTable rows={shown} />
      )}
    </section>
  )
}
