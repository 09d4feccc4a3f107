import { useState } from 'preact/hooks'
import { get } from './api'
import { DiffView } from './DiffView'

interface StepDiff {
  diff: string
  after: 'snapshot' | 'workspace'
  omitted: string[]
}

/** "Changed these files" under a step: the paths the step changed, and its diff when asked for (one request). */
export function StepChanges({ sessionId, turn, step, paths }: { sessionId: string; turn: number; step: number; paths: { path: string; kind: string }[] }) {
  const [diff, setDiff] = useState<StepDiff>()
  const [error, setError] = useState('')
  const [loading, setLoading] = useState(false)
  const show = async (): Promise<void> => {
    setLoading(true)
    setError('')
    try {
      setDiff(await get<StepDiff>(`/api/sessions/${sessionId}/steps/${turn}/${step}/diff`))
    } catch (e) {
      setError((e as Error).message)
    } finally {
      setLoading(false)
    }
  }
  return (
    <section class="changes" aria-label={`Files changed in turn ${turn} step ${step}`}>
      <strong>Changed these files</strong>
      <ul>
        {paths.map((p) => (
          <li key={p.path}>
            <code>{p.path}</code> <span class={`tag ${p.kind}`}>{p.kind}</span>
          </li>
        ))}
      </ul>
      {!diff && (
        <button type="button" class="link" onClick={() => void show()} disabled={loading}>
          {loading ? 'Reading the diff…' : 'Show diff'}
        </button>
      )}
      {error && <p class="error" role="alert">{error}</p>}
      {diff && (
        <>
          <p class="muted">
            {diff.after === 'workspace' ? 'Before the step → the workspace now (no later snapshot yet).' : 'Before the step → the next snapshot.'}
            {diff.omitted.length > 0 && ` ${diff.omitted.length} more files are not shown.`}
          </p>
          <DiffView diff={diff.diff} />
        </>
      )}
    </section>
  )
}
