import { useState } from 'preact/hooks'
import { ApiError, post } from './api'
import { projectName, whenShort } from './format'
import { Icon } from './icons'
import { titleOf } from './SessionTable'
import type { Info, SessionRow } from './types'

/** Rows the sidebar shows; the sessions page (`#/`) lists and searches every one. */
const SIDEBAR_ROWS = 60

/**
 * The sidebar: New session, then the newest sessions grouped by project (the workspace, or with `--all` each
 * directory), each with rename, archive and delete. Archived sessions are hidden unless "Show archived" is on.
 */
export function Sidebar({ info, rows, current, onGo }: { info: Info; rows?: SessionRow[]; current?: string; onGo: () => void }) {
  const [dir, setDir] = useState(info.root)
  const [starting, setStarting] = useState(false)
  const [error, setError] = useState('')
  const [archived, setArchived] = useState(false)
  const [open, setOpen] = useState<string>()

  const start = async (event: Event): Promise<void> => {
    event.preventDefault()
    setStarting(true)
    setError('')
    try {
      await startSession(dir)
      onGo()
    } catch (e) {
      setError((e as Error).message)
    } finally {
      setStarting(false)
    }
  }

  const titles = new Map((rows ?? []).map((r) => [r.id, r.title]))
  const shown = (rows ?? []).filter((r) => archived || !r.archived || r.id === current).slice(0, SIDEBAR_ROWS)
  const groups = new Map<string, SessionRow[]>()
  for (const r of shown) {
    const key = info.all ? r.cwd : info.root
    groups.set(key, [...(groups.get(key) ?? []), r])
  }
  const hidden = (rows ?? []).filter((r) => r.archived).length

  return (
    <aside class="sidebar" id="sidebar" aria-label="Sessions sidebar">
      <form class="new" onSubmit={start} aria-label="Start a session">
        <button type="submit" class="primary" disabled={starting}>
          <Icon name="plus" /> New session
        </button>
        <details>
          <summary>in another directory</summary>
          <label>
            Directory <input name="cwd" value={dir} onInput={(e) => setDir(e.currentTarget.value)} />
          </label>
        </details>
      </form>
      {error && (
        <p class="error pad" role="alert">
          {error}
        </p>
      )}
      <nav class="list" aria-label="Sessions">
        {!rows && <p class="muted pad">Loading sessions…</p>}
        {rows && !shown.length && <p class="muted pad">No sessions yet.</p>}
        {[...groups].map(([cwd, list]) => (
          <section key={cwd} aria-label={`Project ${projectName(cwd)}`}>
            <h2 title={cwd}>{projectName(cwd)}</h2>
            <ul>
              {list.map((r) => (
                <SidebarItem key={r.id} row={r} title={titleOf(r, titles)} current={r.id === current} open={open === r.id} setOpen={(o) => setOpen(o ? r.id : undefined)} onGo={onGo} onError={setError} />
              ))}
            </ul>
          </section>
        ))}
      </nav>
      <div class="foot">
        <a href="#/" onClick={onGo}>
          All sessions{rows ? ` (${rows.length})` : ''}
        </a>
        <label>
          <input type="checkbox" checked={archived} onChange={(e) => setArchived(e.currentTarget.checked)} /> Show archived{hidden ? ` (${hidden})` : ''}
        </label>
      </div>
    </aside>
  )
}

/** Starts a session in `cwd` (relative to the workspace) and opens it. */
export async function startSession(cwd: string): Promise<void> {
  const { id } = await post<{ id: string }>('/api/sessions', { cwd })
  location.hash = `#/s/${id}`
}

function SidebarItem({
  row,
  title,
  current,
  open,
  setOpen,
  onGo,
  onError,
}: {
  row: SessionRow
  title: string
  current: boolean
  open: boolean
  setOpen: (open: boolean) => void
  onGo: () => void
  onError: (message: string) => void
}) {
  const [mode, setMode] = useState<'menu' | 'rename' | 'delete'>('menu')
  const [name, setName] = useState(title)
  const call = async (path: string, body: unknown, method = 'POST'): Promise<boolean> => {
    onError('')
    try {
      if (method === 'DELETE') {
        const response = await fetch(path, { method, credentials: 'same-origin' })
        if (!response.ok) throw new ApiError(response.status, ((await response.json()) as { error: string }).error)
      } else await post(path, body)
      return true
    } catch (e) {
      onError((e as Error).message)
      return false
    }
  }
  const base = `/api/sessions/${encodeURIComponent(row.id)}`
  const close = (): void => {
    setOpen(false)
    setMode('menu')
  }
  return (
    <li>
      <div class={`item${current ? ' current' : ''}`}>
        <a href={`#/s/${row.id}`} aria-current={current ? 'page' : undefined} onClick={onGo}>
          <span class="name">{title}</span>
          <span class="sub">
            <span class={`dot ${row.state}`} aria-hidden="true" />
            {row.state} · {whenShort(row.updatedAt)}
            {row.parent && <span class="tag fork">fork</span>}
            {row.archived && <span class="tag">archived</span>}
          </span>
        </a>
        <button type="button" class="ghost icon-only actions" aria-label={`Actions for ${title}`} aria-expanded={open} onClick={() => (open ? close() : setOpen(true))}>
          <Icon name="more" />
        </button>
      </div>
      {open && mode === 'menu' && (
        <div class="menu" role="group" aria-label={`Actions for ${title}`}>
          <button type="button" onClick={() => (setName(title), setMode('rename'))}>
            <Icon name="pencil" /> Rename
          </button>
          <button type="button" onClick={() => void call(`${base}/archive`, { archived: !row.archived }).then((ok) => ok && close())}>
            <Icon name="archive" /> {row.archived ? 'Unarchive' : 'Archive'}
          </button>
          <button type="button" class="danger" onClick={() => setMode('delete')}>
            <Icon name="trash" /> Delete
          </button>
        </div>
      )}
      {open && mode === 'rename' && (
        <form
          class="menu"
          aria-label={`Rename ${title}`}
          onSubmit={(e) => {
            e.preventDefault()
            void call(`${base}/title`, { title: name }).then((ok) => ok && close())
          }}
        >
          <label class="sr-only" for={`rename-${row.id}`}>
            New title
          </label>
          <input id={`rename-${row.id}`} value={name} maxLength={200} onInput={(e) => setName(e.currentTarget.value)} ref={(el) => el?.focus()} />
          <button type="submit" class="primary">
            Save
          </button>
          <button type="button" onClick={close}>
            Cancel
          </button>
        </form>
      )}
      {open && mode === 'delete' && (
        <div class="menu" role="alertdialog" aria-label={`Delete ${title}?`}>
          <span class="muted">Delete this session's log for good?</span>
          <button
            type="button"
            class="danger"
            onClick={() =>
              void call(base, {}, 'DELETE').then((ok) => {
                if (!ok) return
                close()
                if (current) location.hash = '#/'
              })
            }
          >
            Delete
          </button>
          <button type="button" onClick={close}>
            Keep
          </button>
        </div>
      )}
    </li>
  )
}
