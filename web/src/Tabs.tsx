import { useEffect, useState } from 'preact/hooks'
import { Icon } from './icons'
import { titleOf } from './SessionTable'
import type { SessionRow } from './types'

const KEY = 'rein.tabs'
/** Tabs kept at most; opening one more drops the oldest that is not the current. */
const MOST_TABS = 12

function savedTabs(): string[] {
  try {
    const ids = JSON.parse(localStorage.getItem(KEY) ?? '[]') as unknown
    return Array.isArray(ids) ? ids.filter((i): i is string => typeof i === 'string' && /^[A-Za-z0-9-]{1,128}$/.test(i)) : []
  } catch {
    // A value someone edited by hand: start with no tabs.
    return []
  }
}

/**
 * Tabs of the sessions opened in this browser, kept in localStorage; the address says which one shows. Closing a
 * tab only closes the view: the session goes on running on the server, and stays in the sidebar.
 */
export function Tabs({ current, rows }: { current?: string; rows?: SessionRow[] }) {
  const [ids, setIds] = useState(savedTabs)
  useEffect(() => {
    if (!current || ids.includes(current)) return
    const next = [...ids, current]
    while (next.length > MOST_TABS) next.splice(next.findIndex((id) => id !== current), 1)
    setIds(next)
  }, [current])
  useEffect(() => localStorage.setItem(KEY, JSON.stringify(ids)), [ids])
  // A deleted session's tab goes (once the listing is known).
  useEffect(() => {
    if (rows && ids.some((id) => !rows.some((r) => r.id === id))) setIds(ids.filter((id) => rows.some((r) => r.id === id) || id === current))
  }, [rows])

  if (!ids.length) return null
  const titles = new Map((rows ?? []).map((r) => [r.id, r.title]))
  const close = (id: string): void => {
    const at = ids.indexOf(id)
    const rest = ids.filter((i) => i !== id)
    setIds(rest)
    if (id === current) location.hash = rest.length ? `#/s/${rest[Math.min(at, rest.length - 1)]}` : '#/'
  }
  return (
    <nav class="tabs" aria-label="Open sessions">
      {ids.map((id) => {
        const row = rows?.find((r) => r.id === id)
        const title = row ? titleOf(row, titles) : id.slice(0, 8)
        return (
          <div class={`tab${id === current ? ' current' : ''}`} key={id}>
            <a href={`#/s/${id}`} aria-current={id === current ? 'page' : undefined} title={title}>
              {title}
            </a>
            <button type="button" aria-label={`Close tab ${title}`} title="Close the tab (the session keeps running)" onClick={() => close(id)}>
              <Icon name="close" />
            </button>
          </div>
        )
      })}
    </nav>
  )
}
