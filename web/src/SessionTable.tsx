import { useLayoutEffect, useRef, useState } from 'preact/hooks'
import { useScrollView } from './scroll-view'
import { percent, usd, when, whenShort } from './format'
import type { SessionRow } from './types'

/**
 * A row's title: its own (the first prompt, or a `session/title`), else for a fork with no prompt of its own (a
 * rewind to turn 1) "fork of" its parent's title, else the id's first characters.
 */
export function titleOf(r: SessionRow, titles: ReadonlyMap<string, string>): string {
  if (r.title) return r.title
  if (r.parent) return `fork of ${titles.get(r.parent.id) || r.parent.id.slice(0, 8)}`
  return r.id.slice(0, 8)
}

/** What a cell shows while the server still computes the row's figures (a cold listing of many sessions). */
const PENDING = (
  <span class="muted" title="Being computed">
    …
  </span>
)

/** Rows rendered beyond the visible part, above and below. */
const OVERSCAN_ROWS = 20
/** Pixels per row assumed until the first row is measured. */
const ROW_ESTIMATE = 33

/**
 * The sessions table, rendering only the rows near its scrolled view: the others are two spacer rows of their height.
 * Rows have one height (every cell is one line: long text is cut with an ellipsis), so unlike the transcript's
 * VirtualList, which measures each entry, one measured row gives every offset. The header stays a real `thead`, so
 * the table keeps its semantics for screen readers (`aria-rowcount`/`aria-rowindex` say where a row stands).
 */
export function SessionTable({ rows }: { rows: readonly SessionRow[] }) {
  const box = useRef<HTMLDivElement>(null)
  const [view] = useScrollView(box, 800)
  const [rowHeight, setRowHeight] = useState(ROW_ESTIMATE)

  useLayoutEffect(() => {
    const first = box.current?.querySelector<HTMLElement>('tr[data-session]')
    if (first && first.offsetHeight > 0 && first.offsetHeight !== rowHeight) setRowHeight(first.offsetHeight)
  })

  const titles = new Map(rows.map((r) => [r.id, r.title]))
  const start = Math.max(0, Math.floor(view.top / rowHeight) - OVERSCAN_ROWS)
  const end = Math.min(rows.length, Math.ceil((view.top + view.height) / rowHeight) + OVERSCAN_ROWS)

  return (
    <div ref={box} class="table-scroll" tabIndex={0} role="region" aria-label={`Sessions, ${rows.length} shown`}>
      <table class="sessions" aria-rowcount={rows.length + 1}>
        <thead>
          <tr aria-rowindex={1}>
            <th scope="col">Title</th>
            <th scope="col" class="wide">Workspace</th>
            <th scope="col" class="wide">Model</th>
            <th scope="col">State</th>
            <th scope="col" class="num">Turns</th>
            <th scope="col" class="num">Cost</th>
            <th scope="col" class="num wide">Cache hit</th>
            <th scope="col">Updated</th>
          </tr>
        </thead>
        <tbody>
          {start > 0 && (
            <tr class="spacer" aria-hidden="true">
              <td colSpan={8} style={{ height: `${start * rowHeight}px` }} />
            </tr>
          )}
          {rows.slice(start, end).map((r, i) => (
            <tr key={r.id} data-session={r.id} aria-rowindex={start + i + 2}>
              <td class="title">
                {r.parent && <span class="tag fork">fork</span>} <a href={`#/s/${r.id}`}>{titleOf(r, titles)}</a>
                {r.archived && <span class="tag"> archived</span>}
              </td>
              <td class="muted wide">{r.cwd}</td>
              <td class="wide">{r.pending ? PENDING : r.model || '–'}</td>
              <td>{r.pending && !r.hosted ? PENDING : <span class={`state ${r.state}`}>{r.state}</span>}</td>
              <td class="num">{r.turns}</td>
              <td class="num">{r.pending ? PENDING : usd(r.cost)}</td>
              <td class="num wide">{r.pending ? PENDING : percent(r.cacheHitShare)}</td>
              <td>
                <time dateTime={new Date(r.updatedAt).toISOString()} title={when(r.updatedAt)}>
                  {whenShort(r.updatedAt)}
                </time>
              </td>
            </tr>
          ))}
          {end < rows.length && (
            <tr class="spacer" aria-hidden="true">
              <td colSpan={8} style={{ height: `${(rows.length - end) * rowHeight}px` }} />
            </tr>
          )}
        </tbody>
      </table>
    </div>
  )
}
