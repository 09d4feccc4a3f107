import { render } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { exchangeToken, get, hasToken } from './api'
import { Inspector } from './Inspector'
import { SessionList } from './SessionList'
import { SessionPage } from './SessionPage'
import type { Info } from './types'
import { Sidebar, startSession } from './Sidebar'
import { Tabs } from './Tabs'
import { Icon } from './icons'
import { useListing } from './listing'
import { handleCodeCopies } from './copy'
import { applyTheme, savedTheme, THEMES, type Theme } from './theme'
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
  return <Frame info={info} where={where} />
}

/** The signed-in page: the header, the sidebar of sessions (a drawer on a phone), the tabs and the page itself. */
function Frame({ info, where }: { info: Info; where: Route }) {
  const listing = useListing(where.page === 'session')
  const [drawer, setDrawer] = useState(false)
  const [theme, setTheme] = useState<Theme>(savedTheme)
  const current = where.page === 'list' ? undefined : where.id
  const nextTheme = THEMES[(THEMES.indexOf(theme) + 1) % THEMES.length]
  return (
    <>
      <header class="top">
        <button
          type="button"
          class="ghost icon-only menu-button"
          aria-label="Sessions"
          aria-controls="sidebar"
          aria-expanded={drawer}
          onClick={() => setDrawer(!drawer)}
        >
          <Icon name="menu" />
        </button>
        <a href="#/" class="brand">
          <span class="mark">
            <Icon name="rein" />
          </span>
          Rein
        </a>
        <span class="muted where" title={info.root}>
          {info.all ? 'every workspace' : info.root}
        </span>
        {/* On a phone the sidebar is a drawer: its New session button is here instead (only one shows at a width). */}
        <button type="button" class="ghost icon-only new-phone" aria-label="New session" onClick={() => void startSession(info.root).catch((e: Error) => alert(e.message))}>
          <Icon name="plus" />
        </button>
        <button
          type="button"
          class="ghost icon-only"
          aria-label={`Theme: ${theme}; switch to ${nextTheme}`}
          title={`Theme: ${theme} (switch to ${nextTheme})`}
          onClick={() => {
            applyTheme(nextTheme)
            setTheme(nextTheme)
          }}
        >
          <Icon name={theme === 'light' ? 'sun' : theme === 'dark' ? 'moon' : 'auto'} />
        </button>
      </header>
      <div class={`shell${drawer ? ' drawer' : ''}`}>
        <Sidebar info={info} rows={listing.rows} current={current} onGo={() => setDrawer(false)} />
        {drawer && <button type="button" class="scrim" aria-label="Close the sessions drawer" onClick={() => setDrawer(false)} />}
        <main>
          <Tabs current={current} rows={listing.rows} />
          {where.page === 'list' && <SessionList rows={listing.rows} error={listing.error} />}
          {where.page === 'session' && <SessionPage key={where.id} id={where.id} info={info} />}
          {where.page === 'inspect' && <Inspector key={where.id} id={where.id} seq={where.seq} />}
        </main>
      </div>
    </>
  )
}

applyTheme(savedTheme())
handleCodeCopies()

render(<App />, document.getElementById('app') as HTMLElement)
