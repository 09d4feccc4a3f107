import { useState } from 'preact/hooks'
import { get } from './api'
import { grouped } from './format'
import type { InspectedMessage, InspectedRequest, MessagePage } from '../../src/web/inspector-api.js'

/** Earlier messages one click on "show earlier" asks for. */
const EARLIER = 50

function MessageItem({ m, isNew }: { m: InspectedMessage; isNew: boolean }) {
  return (
    <li class={`role-${m.role}`} data-event={m.eventType} data-index={m.index} {...(isNew ? { 'data-new': '' } : {})}>
      <header>
        <strong>{m.role}</strong> <span class="tag">{m.eventType}</span>
        {m.seq !== null && <span class="seq">seq {m.seq}</span>}
        {m.producer && <span class="tag">from {m.producer}</span>}
        {m.callId && <span class="muted">result for {m.callId}{m.isError ? ' (error)' : ''}</span>}
        {isNew && <span class="tag">new in this step</span>}
      </header>
      <pre>{m.text}</pre>
    </li>
  )
}

/**
 * One chosen request: header, digest check and figures at once, with the newest messages (every one new in this step
 * among them, marked); earlier messages load a page at a time, and the exact body is a download, never drawn.
 */
export function InspectorRequest({ id, request }: { id: string; request: InspectedRequest }) {
  const [shown, setShown] = useState<MessagePage>(request)
  const [error, setError] = useState('')
  const base = `/api/sessions/${id}/requests/${request.seq}`
  const earlier = (): void => {
    get<MessagePage>(`${base}/messages?before=${shown.start}&limit=${EARLIER}`).then(
      (page) => setShown({ total: page.total, start: page.start, items: [...page.items, ...shown.items] }),
      (e: Error) => setError(e.message),
    )
  }
  const fresh = request.total - request.newFrom
  const last = shown.start + shown.items.length
  return (
    <section class="request" id="chosen-request" aria-label={`Request of turn ${request.turn} step ${request.step}`}>
      <h2>
        Request {request.purpose === 'compaction' ? '(compaction)' : `turn ${request.turn} step ${request.step}`} · seq {request.seq}
      </h2>
      <p>
        {request.model} · effort {request.effort} · {grouped(request.bytes)} bytes · {grouped(request.total)} messages · sha256{' '}
        <code>{request.sha256}</code>{' '}
        {request.matches ? <span class="ok">matches the log</span> : <span class="bad">does not match the log</span>}
      </p>
      {request.figures && (
        <p data-request-figures>
          {grouped(request.figures.promptTokens)} prompt tokens, {grouped(request.figures.cachedTokens)} cached ·{' '}
          {grouped(request.figures.outputTokens)} output
        </p>
      )}
      <p>
        <a href={`${base}/body`} download>
          Download the exact body ({grouped(request.bytes)} bytes)
        </a>
      </p>
      <details>
        <summary>System prompt</summary>
        <pre>{request.system}</pre>
      </details>
      <details>
        <summary>Tools ({request.tools.length})</summary>
        <ul>
          {request.tools.map((t) => (
            <li key={t.name}>
              <code>{t.name}</code> <span class="muted">{t.description.split('\n')[0]}</span>
            </li>
          ))}
        </ul>
      </details>
      <p data-message-range>
        Messages {grouped(shown.start + 1)}–{grouped(last)} of {grouped(request.total)};{' '}
        {fresh === request.total ? 'all new in this step' : `${grouped(fresh)} new in this step`}
      </p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {shown.start > 0 && (
        <button type="button" class="link" onClick={earlier}>
          Show {grouped(Math.min(EARLIER, shown.start))} earlier messages
        </button>
      )}
      <ol class="messages" start={shown.start + 1}>
        {shown.items.map((m) => (
          <MessageItem key={m.index} m={m} isNew={m.index >= request.newFrom} />
        ))}
      </ol>
    </section>
  )
}
