import { useEffect, useLayoutEffect, useMemo, useState } from 'preact/hooks'
import { get } from './api'
import { StepChart } from './Chart'
import { grouped, percent, usd } from './format'
import { InspectorRequest } from './InspectorRequest'
import type { InspectedRequest } from '../../src/web/inspector-api.js'
import type { InspectedStep, LogEvent } from './types'

/** The session's totals under the steps table: requests, bytes, tokens, the cache-hit share over all and the cost. */
function StepTotals({ steps }: { steps: readonly InspectedStep[] }) {
  const figures = steps.flatMap((s) => (s.figures ? [s.figures] : []))
  const sum = (f: (s: (typeof figures)[number]) => number): number => figures.reduce((a, s) => a + f(s), 0)
  const prompt = sum((s) => s.promptTokens)
  const cached = sum((s) => s.cachedTokens)
  return (
    <tr class="totals" data-totals>
      <th scope="row">Total</th>
      <td colSpan={2}>{steps.length} requests</td>
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
function StepRow({ id, s, chosen }: { id: string; s: InspectedStep; chosen: boolean }) {
  return (
    <tr data-seq={s.seq} class={chosen ? 'chosen' : ''}>
      <td>
        <a href={`#/s/${id}/inspect/${s.seq}`}>{s.purpose === 'compaction' ? 'compaction' : `${s.turn}.${s.step}`}</a>
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
 * What the model saw, step by step: every request re-derived from the log with its digest check and figures, the
 * chosen request (InspectorRequest: its newest messages, each labelled with the event and producer it came from,
 * earlier ones in pages), and the raw events.
 */
export function Inspector({ id, seq }: { id: string; seq?: number }) {
  const [steps, setSteps] = useState<InspectedStep[]>()
  const [request, setRequest] = useState<InspectedRequest>()
  const [raw, setRaw] = useState<{ start: number; events: LogEvent[]; total: number }>()
  const [error, setError] = useState('')

  useEffect(() => {
    get<{ steps: InspectedStep[] }>(`/api/sessions/${id}/inspect`).then((r) => setSteps(r.steps), (e: Error) => setError(e.message))
    get<{ start: number; events: LogEvent[]; total: number }>(`/api/sessions/${id}/events?limit=200`).then(setRaw, (e: Error) => setError(e.message))
  }, [id])

  // Asked as soon as the new address is diffed, before the browser lays out and paints the steps table again (an
  // effect would wait for that frame: hundreds of rows on a long session).
  useLayoutEffect(() => {
    if (seq === undefined) return setRequest(undefined)
    get<InspectedRequest>(`/api/sessions/${id}/requests/${seq}`).then(setRequest, (e: Error) => setError(e.message))
  }, [id, seq])

  // Choosing a step brings its request into view (the steps table of a long session is taller than the screen).
  useEffect(() => {
    if (request) document.getElementById('chosen-request')?.scrollIntoView({ block: 'start' })
  }, [request])

  // Choosing a step changes one or two rows: the chart, the other rows and the totals keep their elements, so a
  // session of hundreds of steps is not drawn again (Preact skips an element it is given again unchanged).
  const chart = useMemo(() => steps && <StepChart steps={steps.flatMap((s) => (s.figures ? [s.figures] : []))} />, [steps])
  const rows = useMemo(() => steps?.map((s) => <StepRow key={s.seq} id={id} s={s} chosen={false} />), [steps, id])
  const totals = useMemo(() => steps && <StepTotals steps={steps} />, [steps])

  const earlierRaw = (): void => {
    if (!raw || raw.start === 0) return
    get<{ start: number; events: LogEvent[]; total: number }>(`/api/sessions/${id}/events?limit=200&before=${raw.start}`).then(
      (page) => setRaw({ ...page, events: [...page.events, ...raw.events] }),
      (e: Error) => setError(e.message),
    )
  }

  return (
    <section class="pad inspector">
      <p>
        <a href={`#/s/${id}`}>← Back to the session</a>
      </p>
      <h1>Inspector</h1>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {!steps ? (
        <p>Re-deriving requests from the log…</p>
      ) : (
        <>
          {chart}
          <div class="table-wrap">
          <table class="steps" aria-label="Requests">
            <thead>
              <tr>
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
            <tbody>
              {steps.map((s, i) => (s.seq === seq ? <StepRow key={s.seq} id={id} s={s} chosen /> : rows?.[i]))}
            </tbody>
            <tfoot>{totals}</tfoot>
          </table>
          </div>
        </>
      )}
      {request && <InspectorRequest key={request.seq} id={id} request={request} />}
      <h2>Raw events</h2>
      {raw && raw.start > 0 && (
        <button type="button" class="link" onClick={earlierRaw}>
          Earlier events (before seq {raw.start})
        </button>
      )}
      <div class="table-wrap">
      <table class="raw" aria-label="Raw events">
        <thead>
          <tr>
            <th scope="col">Seq</th>
            <th scope="col">Type</th>
            <th scope="col">Source / meta</th>
            <th scope="col">Data</th>
          </tr>
        </thead>
        <tbody>
          {(raw?.events ?? []).map((e) => (
            <tr key={e.seq}>
              <td>{e.seq}</td>
              <td>{e.type}</td>
              <td>
                <code>{e.data.source !== undefined ? JSON.stringify(e.data.source) : ''}</code>
                {e.data.meta !== undefined && <code> meta {JSON.stringify(e.data.meta).slice(0, 200)}</code>}
              </td>
              <td>
                <details>
                  <summary>{JSON.stringify(e.data).slice(0, 80)}</summary>
                  <pre>{JSON.stringify(e, null, 2)}</pre>
                </details>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      </div>
    </section>
  )
}
