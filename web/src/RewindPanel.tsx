import { useEffect, useState } from 'preact/hooks'

/** What the rewind routes answer: the outcome word, one sentence, and the rewind's data (src/checkpoints/rewind-types.ts). */
export interface RewindReply {
  outcome: string
  message: string
  turn?: number
  code?: { target: string | null; changes: { path: string; kind: string }[]; conflicts: string[]; kept: string[] }
  fork?: { id: string; seq: number | null }
}

const VERB: Record<string, string> = { modified: 'put back', added: 'removed', deleted: 'brought back' }

const CHOICES = [
  { label: 'Restore code and conversation', code: true, conversation: true },
  { label: 'Code only', code: true, conversation: false },
  { label: 'Conversation only', code: false, conversation: true },
] as const

/**
 * "Rewind to here": the dry run first (the files that will change and the conflicts, which are asked about again
 * before they are overwritten), then the choice of what to restore. `post` shows its own errors and answers undefined.
 */
export function RewindPanel({
  turn,
  post,
  onDone,
  onClose,
}: {
  turn: number
  post: (path: string, body: unknown) => Promise<unknown>
  onDone: (reply: RewindReply) => void
  onClose: () => void
}) {
  const [plan, setPlan] = useState<RewindReply>()
  const [running, setRunning] = useState(false)
  useEffect(() => {
    let stopped = false
    void post('rewind', { turn, dryRun: true }).then((reply) => {
      if (stopped) return
      if (reply) setPlan(reply as RewindReply)
      else onClose()
    })
    return () => {
      stopped = true
    }
  }, [turn])

  const run = async (code: boolean, conversation: boolean): Promise<void> => {
    setRunning(true)
    const reply = (await post('rewind', { turn, code, conversation })) as RewindReply | undefined
    setRunning(false)
    if (reply) onDone(reply)
  }

  return (
    <div class="ask rewind" role="dialog" aria-label={`Rewind to turn ${turn}`}>
      <p>
        <strong>Rewind to the start of turn {turn}</strong>
      </p>
      {!plan ? (
        <p class="muted">Working out what would change…</p>
      ) : (
        <>
          <p>{plan.message}</p>
          {plan.code && plan.code.changes.length > 0 && (
            <ul aria-label="Files that will change">
              {plan.code.changes.map((c) => (
                <li key={c.path}>
                  {VERB[c.kind] ?? c.kind} <code>{c.path}</code>
                </li>
              ))}
            </ul>
          )}
          {plan.code && plan.code.conflicts.length > 0 && (
            <p class="notice warning" aria-label="Conflicts">
              Changed since Rein last wrote them (you are asked before they are overwritten): {plan.code.conflicts.join(', ')}
            </p>
          )}
          <div class="row">
            {plan.outcome === 'planned' && CHOICES.map((choice) => (
              <button type="button" key={choice.label} disabled={running} onClick={() => void run(choice.code, choice.conversation)}>
                {choice.label}
              </button>
            ))}
            <button type="button" disabled={running} onClick={onClose}>
              Cancel
            </button>
          </div>
        </>
      )}
    </div>
  )
}
