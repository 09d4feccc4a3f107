import type { PermissionRequest } from './types'
import { DiffView } from './DiffView'

/**
 * What a permission ask shows of the call: the question every surface asks (the call's title, why Rein asks, the
 * whole command, the diff of an edit read before approval). A server without questions falls back to the arguments.
 */
export function AskView({ request }: { request: PermissionRequest }) {
  const q = request.question
  if (!q) {
    return (
      <>
        <p>
          <strong>{request.call.name}</strong> needs permission: {request.reason}
        </p>
        <pre>{JSON.stringify(request.call.input ?? {}, null, 2)}</pre>
      </>
    )
  }
  return (
    <>
      <p>
        {q.asker && <span class="tag">{q.asker}</span>} <strong>{q.command === undefined ? q.title : request.call.name}</strong> needs permission:{' '}
        {q.reason}
      </p>
      {q.command !== undefined && <pre class="command">{q.command}</pre>}
      {q.change && (q.change.diff ? <DiffView diff={q.change.diff} /> : <p class="muted">The change to {q.change.shown} is too large to show as a diff.</p>)}
      {q.rule && <p class="muted">Allow always saves the rule <code>{q.rule}</code>.</p>}
    </>
  )
}
