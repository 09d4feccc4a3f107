import { useEffect, useLayoutEffect, useMemo, useState } from 'preact/hooks'
import { get } from './api'
import { StepChart } from './Chart'
import { InspectorRequest } from './InspectorRequest'
import { StepTable } from './StepTable'
import type { InspectedRequest } from '../../src/web/inspector-api.js'
import type { InspectedStep, LogEvent } from './types'

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

  // Choosing a step leaves the chart's element as it was, so it is not drawn again (Preact skips an element it is
  // given again unchanged); the steps table draws only the rows in its view.
  const chart = useMemo(() => steps && <StepChart steps={steps.flatMap((s) => (s.figures ? [s.figures] : []))} />, [steps])

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
          <StepTable id={id} steps={steps} seq={seq} />
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
