import { useEffect, useRef, useState } from 'preact/hooks'
import { get } from './api'
import { mentionAt } from './mention-at'
import './panels.css'

export interface Mentions {
  /** The prompt's textarea, set by whoever sees its events (AttachmentsComposer). */
  ref: { current: HTMLTextAreaElement | null }
  files: string[]
  active: number
  open: boolean
  /** Call on every input and caret move. */
  track(): void
  pick(path: string): void
  /** Handles the list's keys (arrows, Tab, Enter, Escape) while it is open; true when it took the key. */
  onKeyDown(e: KeyboardEvent): boolean
}

/**
 * `@` completion in the prompt: while the caret is in a word starting with `@`, the workspace files matching it
 * (`GET /api/sessions/:id/files?q=`, which leaves out ignored and denied files). Picking one writes `@path `; the server
 * attaches the file when the prompt is sent, through the read tool's checks.
 */
export function useMentions(sessionId: string, text: string, setText: (text: string) => void): Mentions {
  const ref = useRef<HTMLTextAreaElement>(null)
  const [at, setAt] = useState<{ start: number; query: string }>()
  const [files, setFiles] = useState<string[]>([])
  const [active, setActive] = useState(0)
  const [dismissed, setDismissed] = useState<number>()
  useEffect(() => {
    if (!at) {
      setFiles([])
      return
    }
    let stale = false
    const timer = setTimeout(() => {
      get<{ files: string[] }>(`/api/sessions/${encodeURIComponent(sessionId)}/files?q=${encodeURIComponent(at.query)}`).then(
        (r) => {
          if (stale) return
          setFiles(r.files)
          setActive(0)
        },
        () => !stale && setFiles([]),
      )
    }, 80)
    return () => {
      stale = true
      clearTimeout(timer)
    }
  }, [sessionId, at?.start, at?.query])
  const open = at !== undefined && dismissed !== at.start && files.length > 0
  const track = (): void => {
    const el = ref.current
    setAt(el ? mentionAt(el.value, el.selectionStart ?? el.value.length) : undefined)
  }
  const pick = (path: string): void => {
    const el = ref.current
    if (!el || !at) return
    const caret = el.selectionStart ?? text.length
    const next = `${text.slice(0, at.start)}@${path} ${text.slice(caret)}`
    setText(next)
    setAt(undefined)
    const end = at.start + path.length + 2
    requestAnimationFrame(() => {
      el.focus()
      el.setSelectionRange(end, end)
    })
  }
  return {
    ref,
    files,
    active,
    open,
    track,
    pick,
    onKeyDown: (e) => {
      if (!open || !at) return false
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        setActive((a) => (a + (e.key === 'ArrowDown' ? 1 : files.length - 1)) % files.length)
      } else if (e.key === 'Tab' || e.key === 'Enter') {
        pick(files[active])
      } else if (e.key === 'Escape') {
        setDismissed(at.start)
      } else return false
      e.preventDefault()
      return true
    },
  }
}

/** The completion list under the prompt. */
export function MentionList({ mentions }: { mentions: Mentions }) {
  if (!mentions.open) return null
  return (
    <ul class="mentions" role="listbox" id="mention-list" aria-label="Workspace files">
      {mentions.files.map((f, i) => (
        <li
          key={f}
          id={`mention-${i}`}
          role="option"
          aria-selected={i === mentions.active}
          class={i === mentions.active ? 'active' : ''}
          onMouseDown={(e) => {
            e.preventDefault()
            mentions.pick(f)
          }}
        >
          @{f}
        </li>
      ))}
    </ul>
  )
}
