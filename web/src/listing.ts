import { useEffect, useState } from 'preact/hooks'
import { getIfChanged } from './api'
import type { SessionRow } from './types'

let shown: () => void = () => undefined
/**
 * Resolved once a session page has shown its first events. A page opened on a session asks for the listing only
 * then: on a cold open of a long log, the listing's figures would read the same log a second time alongside the
 * page's own read (bench/web-open.bench.mjs), and the transcript matters first.
 */
const sessionShown = new Promise<void>((resolve) => (shown = resolve))
export function markSessionShown(): void {
  shown()
}

/**
 * The sessions listing, kept current over the server's list stream (`GET /api/stream`): the stream names the
 * listing's ETag at once and whenever it changes, and only then is the listing re-asked, with the ETag held (an
 * unchanged listing is a bodiless 304). No polling; the browser reconnects a dropped stream by itself.
 */
export function useListing(afterSession: boolean): { rows?: SessionRow[]; error: string } {
  const [rows, setRows] = useState<SessionRow[]>()
  const [error, setError] = useState('')
  useEffect(() => {
    let stop = false
    let held: string | undefined
    let asking = false
    // The stream named a listing while one was on its way: ask once more when it lands.
    let again = false
    const load = (): void => {
      if (asking) {
        again = true
        return
      }
      asking = true
      getIfChanged<{ sessions: SessionRow[] }>('/api/sessions', held)
        .then(
          (r) => {
            if (stop) return
            setError('')
            if (r) {
              held = r.etag
              setRows(r.value.sessions)
            }
          },
          (e: Error) => !stop && setError(e.message),
        )
        .finally(() => {
          asking = false
          if (!stop && again) {
            again = false
            load()
          }
        })
    }
    let source: EventSource | undefined
    void (afterSession ? sessionShown : Promise.resolve()).then(() => {
      if (stop) return
      source = new EventSource('/api/stream')
      source.onmessage = (message) => {
        const data = JSON.parse(message.data as string) as { kind: string; etag: string }
        if (data.kind !== 'listing') return
        if (!same(data.etag, held)) load()
      }
    })
    return () => {
      stop = true
      source?.close()
    }
  }, [])
  return { rows, error }
}

/** Whether two ETags name one listing; compression marks the one a GET answers weak (`W/"…"`). */
function same(a: string | undefined, b: string | undefined): boolean {
  return a !== undefined && b !== undefined && a.replace(/^W\//, '') === b.replace(/^W\//, '')
}
