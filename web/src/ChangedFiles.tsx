import { useEffect, useState } from 'preact/hooks'
import { get } from './api'
import { DiffView } from './DiffView'
import './panels.css'

interface FileStep {
  turn: number
  step: number
  kind: string
}

interface ChangedFile {
  path: string
  kind: string
  steps: FileStep[]
}

/** The folder a path is in, `.` for the workspace root. */
function folderOf(path: string): string {
  const cut = path.lastIndexOf('/')
  return cut < 0 ? '.' : path.slice(0, cut)
}

/**
 * The review of every file the session changed (`GET /api/sessions/:id/changes`), grouped by folder: its kind over
 * the whole session, the steps that changed it, and its diff from before the first change to now when asked for. The
 * rewind API restores a whole turn, not chosen files, so each file offers the rewind panel of the turn that first
 * changed it. `version` changes whenever the log gains a `checkpoint/changes`.
 */
export function ChangedFiles({ sessionId, version, onRewind }: { sessionId: string; version: number; onRewind?: (turn: number) => void }) {
  const [files, setFiles] = useState<ChangedFile[]>()
  const [error, setError] = useState('')
  useEffect(() => {
    get<{ files: ChangedFile[] }>(`/api/sessions/${encodeURIComponent(sessionId)}/changes`).then(
      (r) => setFiles(r.files),
      (e: Error) => setError(e.message),
    )
  }, [sessionId, version])
  if (error) return <p class="error" role="alert">{error}</p>
  if (!files) return <p class="muted">Reading the changes…</p>
  if (!files.length) return <p class="muted">This session has changed no file yet.</p>
  const groups = new Map<string, ChangedFile[]>()
  for (const f of files) groups.set(folderOf(f.path), [...(groups.get(folderOf(f.path)) ?? []), f])
  return (
    <div>
      <p class="muted">
        {files.length} {files.length === 1 ? 'file' : 'files'} changed
      </p>
      {[...groups.entries()].map(([folder, list]) => (
        <section key={folder} aria-label={`Changed in ${folder}`}>
          <h3>{folder === '.' ? 'workspace root' : `${folder}/`}</h3>
          <ul>
            {list.map((f) => (
              <ChangedFileRow key={f.path} sessionId={sessionId} file={f} version={version} onRewind={onRewind} />
            ))}
          </ul>
        </section>
      ))}
    </div>
  )
}

function ChangedFileRow({ sessionId, file, version, onRewind }: { sessionId: string; file: ChangedFile; version: number; onRewind?: (turn: number) => void }) {
  const [diff, setDiff] = useState<{ diff: string; after: string }>()
  const [error, setError] = useState('')
  const [open, setOpen] = useState(false)
  useEffect(() => setDiff(undefined), [version])
  const toggle = async (): Promise<void> => {
    setOpen(!open)
    if (open || diff) return
    setError('')
    try {
      setDiff(await get(`/api/sessions/${encodeURIComponent(sessionId)}/changes/diff?path=${encodeURIComponent(file.path)}`))
    } catch (e) {
      setError((e as Error).message)
    }
  }
  const firstTurn = file.steps[0].turn
  return (
    <li>
      <div class="file-row">
        <code>{file.path}</code> <span class={`tag ${file.kind}`}>{file.kind}</span>
        <span class="muted">{file.steps.map((s) => `${s.turn}.${s.step}`).join(', ')}</span>
        <button type="button" class="link" aria-expanded={open} onClick={() => void toggle()}>
          {open ? 'Hide diff' : 'Show diff'}
          <span class="sr-only"> of {file.path}</span>
        </button>
        {onRewind && (
          <button type="button" class="link" onClick={() => onRewind(firstTurn)}>
            Rewind to turn {firstTurn}…<span class="sr-only"> (restores every file that turn changed)</span>
          </button>
        )}
      </div>
      {open && error && <p class="error" role="alert">{error}</p>}
      {open && diff && (
        <>
          <p class="muted">{diff.after === 'workspace' ? 'Before the first change → the workspace now.' : 'Before the first change → the latest snapshot.'}</p>
          <DiffView diff={diff.diff} />
        </>
      )}
    </li>
  )
}
