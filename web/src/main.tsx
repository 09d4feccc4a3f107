import { render } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { exchangeToken, get, hasToken } from './api'
import { Inspector } from './Inspector'
import { SessionList } from './SessionList'
import { SessionPage } from './SessionPage'
import type { Info } from './types'
import './styles.css'

type Route = { page: 'list' } | { page: 'session'; id: string } | { page: 'inspect'; id: string; seq?: number }

/** The page's address after `#`: `/`, `/s/<id>`, `/s/<id>/inspect[/<seq>]`. */
function route(): Route {
  const m = /^#\/s\/([A-Za-z0-9-]+)(\/inspect(?:\/(\d+))?)?$/.exec(location.hash)
  if (!m) return { page: 'list' }
  return m[2] ? { page: 'inspect', id: m[1], ...(m[3] ? { seq: Number(m[3]) } : {}) } : { page: 'session', id: m[1] }
}

function App() {
  const [ready, setReady] = useState<'wait' | 'ok' | string>('wait')
  const [info, setInfo] = useState<Info>()
  const [where, setWhere] = useState<Route>({ page: 'list' })

  useEffect(() => {
    const connect = (): void => {
      setReady('wait')
      exchangeToken()
        .then(() => get<Info>('/api/info'))
        .then((i) => {
          setInfo(i)
          setWhere(route())
          setReady('ok')
        })
        .catch((error: unknown) => setReady(error instanceof Error ? error.message : String(error)))
    }
    connect()
    // Pasting the printed address into an open tab changes only the fragment: no load happens, so sign in here.
    const onHash = (): void => (hasToken() ? connect() : setWhere(route()))
    addEventListener('hashchange', onHash)
    return () => removeEventListener('hashchange', onHash)
  }, [])

  if (ready === 'wait') return <p class="pad">Connecting…</p>
  if (ready !== 'ok' || !info) return <p class="pad error" role="alert">{ready}</p>
  return (
    <>
      <header class="top">
        <a href="#/" class="brand">
          Rein
        </a>
        <span class="muted">{info.all ? 'every workspace' : info.root}</span>
      </header>
      <main>
        {where.page === 'list' && <SessionList info={info} />}
        {where.page === 'session' && <SessionPage key={where.id} id={where.id} info={info} />}
        {where.page === 'inspect' && <Inspector key={where.id} id={where.id} seq={where.seq} />}
      </main>
    </>
  )
}

render(<App />, document.getElementById('app') as HTMLElement)
