import { useLayoutEffect, useRef, useState } from 'preact/hooks'
import { useScrollView } from './scroll-view'
import { grouped, percent, usd } from './format'
import type { InspectedStep } from './types'

/** Rows rendered beyond the visible part, above and below. */
const OVERSCAN_ROWS = 20
/** Pixels per row assumed until the first row is measured. */
const ROW_ESTIMATE = 33

/**
 * The session's totals under the steps table: requests, how many digests match, bytes, tokens, the cache-hit share
 * over all and the cost. It counts every step, drawn or not, so a mismatch scrolled out of view still shows here.
 */
function StepTotals({ steps }: { steps: readonly InspectedStep[] }) {
  const figures = steps.flatMap((s) => (s.figures ? [s.figures] : []))
  const sum = (f: (s: (typeof figures)[number]) => number): number => figures.reduce((a, s) => a + f(s), 0)
  const prompt = sum((s) => s.promptTokens)
  const cached = sum((s) => s.cachedTokens)
  const matching = steps.filter((s) => s.matches).length
  return (
    <tr class="totals" data-totals aria-rowindex={steps.length + 2}>
      <th scope="row">Total</th>
      <td>{steps.length} requests</td>
      <td class={matching === steps.length ? 'ok' : 'bad'} data-matching={matching}>
        {matching === steps.length ? `✓ ${matching} match` : `✗ ${steps.length - matching} of ${steps.length} do not match`}
      </td>
      <td>{grouped(steps.reduce((a, s) => a + s.bytes, 0))}</td>
      <td />
      <td data-field="prompt">{grouped(prompt)}</td>
      <td data-field="cached">{grouped(cached)}</td>
      <td data-field="output">{grouped(sum((s) => s.outputTokens))}</td>
      <td>{percent(prompt > 0 ? cached / prompt : undefined)}</td>
      <td data-field="cost">{usd(sum((s) => s.cost))}</td>
    </tr>
  )
}

/** One request's row: where it is, its digest check and its figures; the chosen one is highlighted. */
function StepRow({ id, s, chosen, index }: { id: string; s: InspectedStep; chosen: boolean; index: number }) {
  return (
    <tr data-seq={s.seq} class={chosen ? 'chosen' : ''} aria-rowindex={index + 2}>
      <td>
        <a href={`#/s/${id}/inspect/${s.seq}`} aria-current={chosen ? 'true' : undefined}>
          {s.purpose === 'compaction' ? 'compaction' : `${s.turn}.${s.step}`}
        </a>
      </td>
      <td>{s.seq}</td>
      <td class={s.matches ? 'ok' : 'bad'} data-digest={s.matches ? 'match' : 'mismatch'} title={s.sha256}>
        {s.matches ? `✓ ${s.sha256.slice(0, 12)}` : `✗ logged ${s.loggedSha256.slice(0, 12)}, derived ${s.sha256.slice(0, 12)}`}
      </td>
      <td>{grouped(s.bytes)}</td>
      <td>{s.messages}</td>
      <td data-field="prompt">{s.figures ? grouped(s.figures.promptTokens) : '–'}</td>
      <td data-field="cached">{s.figures ? grouped(s.figures.cachedTokens) : '–'}</td>
      <td data-field="output">{s.figures ? grouped(s.figures.outputTokens) : '–'}</td>
      <td>{percent(s.figures?.cacheHitShare)}</td>
      <td>{s.figures ? usd(s.figures.cost) : '–'}</td>
    </tr>
  )
}

/**
 * The steps table in its own scrolling box, rendering only the rows near its scrolled view (the others are two spacer
 * rows of their height), as the sessions table does: rows have one height (every cell is one line), so one measured
 * row gives every offset. The header and the totals stay in view; the chosen step's row is scrolled into the box when
 * it is chosen; ↑ and ↓ on a step's link move to the previous and next step's link, drawing it first if it is not.
 * `aria-rowcount`/`aria-rowindex` tell a screen reader where a row stands among all of them.
 */
export function StepTable({ id, steps, seq }: { id: string; steps: readonly InspectedStep[]; seq?: number }) {
  const box = useRef<HTMLDivElement>(null)
  const [view, remeasure] = useScrollView(box, 600)
  const [rowHeight, setRowHeight] = useState(ROW_ESTIMATE)
  /** The step whose link gets the focus once its row is drawn (↑/↓). */
  const focusNext = useRef<number | undefined>(undefined)

  useLayoutEffect(() => {
    const first = box.current?.querySelector<HTMLElement>('tr[data-seq]')
    if (first && first.offsetHeight > 0 && first.offsetHeight !== rowHeight) setRowHeight(first.offsetHeight)
    if (focusNext.current !== undefined) {
      const link = box.current?.querySelector<HTMLElement>(`tr[data-seq="${focusNext.current}"] a`)
      if (link) {
        focusNext.current = undefined
        link.focus()
      }
    }
  })

  /** Scrolls the box so the row at `index` is within it, between the header and the totals; no move if it is. */
  const reveal = (index: number): void => {
    const el = box.current
    if (!el) return
    const head = el.querySelector('thead')?.offsetHeight ?? 0
    const foot = el.querySelector('tfoot')?.offsetHeight ?? 0
    const top = head + index * rowHeight
    if (top - head >= el.scrollTop && top + rowHeight <= el.scrollTop + el.clientHeight - foot) return
    el.scrollTop = Math.max(0, top - (el.clientHeight - head - foot) / 2)
    remeasure()
  }

  const chosenIndex = seq === undefined ? -1 : steps.findIndex((s) => s.seq === seq)
  useLayoutEffect(() => {
    if (chosenIndex >= 0) reveal(chosenIndex)
    // Only on choosing (or on the first measure of a row): the reader's own scrolling is left alone.
  }, [chosenIndex, steps, rowHeight])

  const onKeyDown = (event: KeyboardEvent): void => {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return
    const row = (event.target as HTMLElement).closest<HTMLElement>('tr[data-seq]')
    if (!row || !(event.target instanceof HTMLAnchorElement)) return
    const index = steps.findIndex((s) => String(s.seq) === row.dataset.seq) + (event.key === 'ArrowDown' ? 1 : -1)
    if (index < 0 || index >= steps.length) return
    event.preventDefault()
    focusNext.current = steps[index].seq
    reveal(index)
    box.current?.querySelector<HTMLElement>(`tr[data-seq="${steps[index].seq}"] a`)?.focus()
  }

  const start = Math.max(0, Math.floor(view.top / rowHeight) - OVERSCAN_ROWS)
  const end = Math.min(steps.length, Math.ceil((view.top + view.height) / rowHeight) + OVERSCAN_ROWS)

  return (
    <div ref={box} class="table-scroll steps-scroll" tabIndex={0} role="region" aria-label={`Requests, ${steps.length} in all`}>
      <table class="steps" aria-label="Requests" aria-rowcount={steps.length + 2}>
        <thead>
          <tr aria-rowindex={1}>
            <th scope="col">Step</th>
            <th scope="col">Seq</th>
            <th scope="col">Digest</th>
            <th scope="col">Bytes</th>
            <th scope="col">Messages</th>
            <th scope="col">Prompt</th>
            <th scope="col">Cached</th>
            <th scope="col">Output</th>
            <th scope="col">Cache hit</th>
            <th scope="col">Cost</th>
          </tr>
        </thead>
        <tbody onKeyDown={onKeyDown}>
          {start > 0 && (
            <tr class="spacer" aria-hidden="true">
              <td colSpan={10} style={{ height: `${start * rowHeight}px` }} />
            </tr>
          )}
          {steps.slice(start, end).map((s, i) => (
            <StepRow key={s.seq} id={id} s={s} chosen={s.seq === seq} index={start + i} />
          ))}
          {end < steps.length && (
            <tr class="spacer" aria-hidden="true">
              <td colSpan={10} style={{ height: `${(steps.length - end) * rowHeight}px` }} />
            </tr>
          )}
        </tbody>
        <tfoot>
          <StepTotals steps={steps} />
        </tfoot>
      </table>
    </div>
  )
}
