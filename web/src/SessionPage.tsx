import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import { PanelTabs } from './PanelTabs'
import { useAttachments } from './Attachments'
import { AttachmentsComposer, sendWith } from './AttachmentsComposer'
import { get, post } from './api'
import { Composer } from './Composer'
import { ItemView } from './ItemView'
import { TranscriptModel, type Item } from './transcript'
import type { Info, LiveState, LogEvent, PermissionRequest, StreamMessage } from './types'
import { VirtualList } from './VirtualList'
import { RewindPanel, type RewindReply } from './RewindPanel'
import { AskView } from './AskView'
import { CommandPalette, useCommands } from './CommandPalette'
import { Icon } from './icons'
import { markSessionShown } from './listing'

interface Meta {
  id: string
  cwd: string
  title: string
  total: number
  parent?: { id: string; seq: number }
  state: LiveState
}

/** Events the page asks for at a time: the newest page on open, earlier ones as the reader scrolls up. */
const PAGE = 400

/**
 * A session: its transcript (the newest events first, earlier pages on demand, live over Server-Sent Events), the
 * controls (mode, model, effort, cancel, fork, export) and the composer. Every page open on the session sees the same
 * stream; only the server writes.
 */
export function SessionPage({ id, info }: { id: string; info: Info }) {
  const [meta, setMeta] = useState<Meta>()
  const [error, setError] = useState('')
  const [state, setState] = useState<LiveState>({ hosted: false })
  const [asks, setAsks] = useState<{ id: string; request: PermissionRequest }[]>([])
  const [draft, setDraft] = useState('')
  const attachments = useAttachments(id)
  const [note, setNote] = useState('')
  const [palette, setPalette] = useState(false)
  const [wantCommands, setWantCommands] = useState(false)
  const commands = useCommands(id, wantCommands)
  const [, setVersion] = useState(0)
  const events = useRef<LogEvent[]>([])
  const first = useRef(0)
  const model = useRef(new TranscriptModel())
  const loadingEarlier = useRef(false)
  // Rewind (docs/web.md): the turn whose "Rewind to here" panel is open, and whether a code rewind can be undone.
  const [rewindTurn, setRewindTurn] = useState<number>()
  const [undoable, setUndoable] = useState(false)
  const checkUndoable = (): void => {
    get<{ undoable: unknown }>(`/api/sessions/${id}/turns`).then(
      (r) => setUndoable(r.undoable !== null),
      (e: Error) => setError(e.message),
    )
  }
  useEffect(checkUndoable, [id])

  const rebuild = (): void => {
    const m = new TranscriptModel()
    for (const e of events.current) m.apply(e)
    model.current = m
    setVersion((v) => v + 1)
  }

  useEffect(() => {
    let source: EventSource | undefined
    let stopped = false
    ;(async () => {
      const m = await get<Meta>(`/api/sessions/${id}`)
      const page = await get<{ total: number; start: number; events: LogEvent[] }>(`/api/sessions/${id}/events?limit=${PAGE}&before=${m.total}`)
      if (stopped) return
      setMeta(m)
      setState(m.state)
      setAsks(m.state.asks ?? [])
      events.current = page.events
      first.current = page.start
      rebuild()
      markSessionShown()
      source = new EventSource(`/api/sessions/${id}/stream?from=${page.start + page.events.length}`)
      source.onmessage = (message) => {
        const data = JSON.parse(message.data as string) as StreamMessage
        if (data.kind === 'live') {
          if (data.live.type === 'event') {
            const last = events.current[events.current.length - 1]
            if (last && data.live.event.seq <= last.seq) return
            events.current.push(data.live.event)
            const event = data.live.event
            if (event.type === 'session/title') setMeta((old) => old && { ...old, title: String(event.data.title) })
            if (event.type === 'checkpoint/rewind' || event.type === 'checkpoint/rewind-undone') checkUndoable()
            if (event.type === 'user/message') setMeta((old) => (old && !old.title ? { ...old, title: firstLine(event.data.content) } : old))
          }
          model.current.live(data.live)
          setVersion((v) => v + 1)
        } else if (data.kind === 'state' || data.kind === 'logged-state') {
          setState(data.state)
          if (data.state.asks) setAsks(data.state.asks)
        } else if (data.kind === 'ask') {
          setAsks((list) => (list.some((a) => a.id === data.id) ? list : [...list, { id: data.id, request: data.request }]))
        } else if (data.kind === 'ask-settled') {
          setAsks((list) => list.filter((a) => a.id !== data.id))
        }
      }
    })().catch((e: Error) => {
      setError(e.message)
      markSessionShown()
    })
    return () => {
      stopped = true
      source?.close()
    }
  }, [id])

  // Keyboard (docs/web.md): the prompt has focus once the session shows (after New session too) and again when an
  // answered permission ask leaves the page; Esc cancels a running turn; "/" outside a text field goes to the prompt.
  const loaded = meta !== undefined
  useEffect(() => {
    if (loaded) focusPrompt()
  }, [loaded])
  useEffect(() => {
    if (!document.activeElement || document.activeElement === document.body) focusPrompt()
  }, [asks.length])
  const busyNow = useRef(false)
  busyNow.current = state.busy === true
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 'k') {
        e.preventDefault()
        setPalette(true)
        return
      }
      if (e.defaultPrevented || e.isComposing || e.ctrlKey || e.metaKey || e.altKey) return
      if (e.key === 'Escape' && busyNow.current) {
        e.preventDefault()
        void post(`/api/sessions/${id}/cancel`).catch((error: Error) => setError(error.message))
      } else if (e.key === '/' && !typing(e.target)) {
        e.preventDefault()
        focusPrompt()
      }
    }
    addEventListener('keydown', onKey)
    return () => removeEventListener('keydown', onKey)
  }, [id])

  const loadEarlier = useCallback(() => {
    if (loadingEarlier.current || first.current === 0) return
    loadingEarlier.current = true
    get<{ start: number; events: LogEvent[] }>(`/api/sessions/${id}/events?limit=${PAGE}&before=${first.current}`)
      .then((page) => {
        events.current = [...page.events, ...events.current]
        first.current = page.start
        rebuild()
      })
      .catch((e: Error) => setError(e.message))
      .finally(() => (loadingEarlier.current = false))
  }, [id])

  const act = async (path: string, body: unknown = {}): Promise<unknown> => {
    setError('')
    try {
      return await post(`/api/sessions/${id}/${path}`, body)
    } catch (e) {
      setError((e as Error).message)
      return undefined
    }
  }

  /** Takes a queued input back into the prompt box, as Up on an empty editor does in the terminal. */
  const withdraw = async (item: string): Promise<void> => {
    const taken = (await act(`withdraw/${item}`)) as { text: string } | undefined
    if (taken) setDraft(draft ? `${taken.text}\n${draft}` : taken.text)
  }

  const compact = async (): Promise<void> => {
    setNote('Compacting…')
    const done = (await act('compact')) as { outcome: string; message: string } | undefined
    // A compaction that replaced the conversation is announced once, by the transcript's notice of its compaction/end.
    setNote(done && done.outcome !== 'replaced' ? done.message : '')
  }

  const fork = async (seq?: number): Promise<void> => {
    const made = (await act('fork', seq === undefined ? {} : { seq })) as { id: string } | undefined
    if (made) location.hash = `#/s/${made.id}`
  }

  /** Runs a built-in of the catalog; its replies show in the notice line. */
  const command = async (name: string, args: string): Promise<boolean> => {
    const done = (await act('commands', { name, args })) as { replies: { text: string; title?: string }[] } | undefined
    if (done) setNote(done.replies.map((r) => (r.title ? `${r.title}\n${r.text}` : r.text)).join('\n\n') || `/${name} done.`)
    return done !== undefined
  }

  const rewound = (reply: RewindReply): void => {
    setRewindTurn(undefined)
    setNote(reply.message)
    checkUndoable()
    if (reply.fork) location.hash = `#/s/${reply.fork.id}`
  }

  const undoRewind = async (): Promise<void> => {
    const reply = (await act('rewind-undo')) as RewindReply | undefined
    if (reply) setNote(reply.message)
    checkUndoable()
  }

  // A session this server does not hold yet shows the settings its log last recorded, not empty menus.
  const logged = loggedSettings(events.current)
  const mode = state.permissionMode ?? logged.permissionMode
  const modelId = state.model ?? logged.model
  const effort = state.effort ?? logged.effort

  if (!meta) return error ? <p class="pad error" role="alert">{error}</p> : <p class="pad">Loading the session…</p>
  const busy = state.busy === true
  const shown = state.hosted ? (busy ? 'running' : 'idle') : (state.state ?? 'idle')
  return (
    <section class="session">
      <div class="bar">
        <h1>{meta.title || (meta.parent ? `Fork of ${meta.parent.id.slice(0, 8)}` : `Session ${id.slice(0, 8)}`)}</h1>
        {meta.parent && <span class="tag fork">fork</span>}
        <span class={`state ${shown}`} aria-live="polite" data-testid="state">
          {shown}
        </span>
        <span class="muted">{meta.cwd}</span>
        {meta.parent && (
          <a href={`#/s/${meta.parent.id}`} class="muted">
            forked from {meta.parent.id.slice(0, 8)} @ {meta.parent.seq}
          </a>
        )}
        <nav class="row" aria-label="Session">
          <a href={`#/s/${id}/inspect`} class="inspector-link">
            <Icon name="chart" /> Inspector
          </a>
          <a href={`/api/sessions/${id}/export?format=md`} download>
            Export Markdown
          </a>
          <a href={`/api/sessions/${id}/export?format=jsonl`} download>
            Export JSONL
          </a>
          <button type="button" onClick={() => void fork()}>
            <Icon name="fork" /> Fork
          </button>
          <button type="button" class="ghost icon-only" onClick={() => setPalette(true)} aria-label="Commands" aria-keyshortcuts="Control+K" title="Commands (Ctrl+K)">
            <Icon name="command" />
          </button>
          {undoable && (
            <button type="button" onClick={() => void undoRewind()} disabled={busy}>
              Undo rewind
            </button>
          )}
        </nav>
      </div>
      <div class="bar controls">
        <label for="mode">Permission mode</label>
        <select id="mode" value={mode ?? ''} onChange={(e) => void act('settings', { permissionMode: e.currentTarget.value })}>
          {!mode && <option value="">default</option>}
          {info.modes.map((m) => (
            <option key={m}>{m}</option>
          ))}
        </select>
        <label for="model">Model</label>
        <select id="model" value={modelId ?? ''} onChange={(e) => void act('settings', { model: e.currentTarget.value })}>
          {!modelId && <option value="">default</option>}
          {[...new Set([...info.models, ...(modelId ? [modelId] : [])])].map((m) => (
            <option key={m}>{m}</option>
          ))}
        </select>
        <label for="effort">Effort</label>
        <select id="effort" value={effort ?? ''} onChange={(e) => void act('settings', { effort: e.currentTarget.value })}>
          {!effort && <option value="">default</option>}
          {info.efforts.map((m) => (
            <option key={m}>{m}</option>
          ))}
        </select>
        <button type="button" onClick={() => void act('cancel')} disabled={!busy} aria-keyshortcuts="Escape" title="Cancel the running turn (Esc)">
          <Icon name="stop" /> Cancel
        </button>
        <button type="button" onClick={() => void compact()} disabled={busy || !state.hosted}>
          Compact
        </button>
        {state.queued && state.queued.length > 0 && <span class="muted">{state.queued.length} queued</span>}
      </div>
      {note && (
        <p class="notice info note-line" role="status">
          <span>{note}</span>{' '}
          <button type="button" class="link" onClick={() => setNote('')}>
            Dismiss
          </button>
        </p>
      )}
      {(state.queued ?? []).length > 0 && (
        <ul class="queue" aria-label="Queued inputs">
          {(state.queued ?? []).map((q) => (
            <li key={q.id}>
              <span class="tag">{q.verb === 'steer' ? 'steering' : q.verb === 'followUp' ? 'follow-up' : q.verb}</span> {q.text}{' '}
              <button type="button" class="link" onClick={() => void withdraw(q.id)}>
                Withdraw
              </button>
            </li>
          ))}
        </ul>
      )}
      {(state.problems ?? []).map((p) => (
        <p class="notice warning" key={p}>
          {p}
        </p>
      ))}
      {error && (
        <p class="error pad" role="alert">
          {error}
        </p>
      )}
      {first.current > 0 && (
        <button type="button" class="link pad" onClick={loadEarlier}>
          Load earlier events (before seq {first.current})
        </button>
      )}
      <VirtualList<Item>
        items={model.current.items}
        version={model.current.version}
        keyOf={(item) => item.key}
        render={(item) => <ItemView item={item} sessionId={id} onFork={(seq) => void fork(seq)} onRewind={busy ? undefined : setRewindTurn} />}
        onTop={loadEarlier}
        label="Transcript"
      />
      {rewindTurn !== undefined && (
        <RewindPanel key={rewindTurn} turn={rewindTurn} post={act} onDone={rewound} onClose={() => setRewindTurn(undefined)} />
      )}
      {asks.map((ask) => (
        <div class="ask" role="alertdialog" aria-label={`Permission for ${ask.request.call.name}`} key={ask.id}>
          <AskView request={ask.request} />
          <div class="row">
            <button type="button" onClick={() => void act(`asks/${ask.id}`, { outcome: 'allow-once' })}>
              Allow once
            </button>
            <button
              type="button"
              onClick={() => void act(`asks/${ask.id}`, { outcome: 'allow-always' })}
            >
              Allow always{ask.request.suggestedRule ? ` (${ask.request.suggestedRule})` : ''}
            </button>
            <button type="button" onClick={() => void act(`asks/${ask.id}`, { outcome: 'deny' })}>
              Deny
            </button>
          </div>
        </div>
      ))}
      <PanelTabs sessionId={id} hosted={state.hosted} changes={events.current.filter((e) => e.type === 'checkpoint/changes').length} onRewind={busy ? undefined : setRewindTurn} />
      <AttachmentsComposer sessionId={id} attachments={attachments} text={draft} setText={setDraft}>
        <Composer
          busy={busy}
          text={draft}
          setText={setDraft}
          send={sendWith(attachments, act)}
          commands={commands}
          wantCommands={() => setWantCommands(true)}
          runCommand={command}
        />
      </AttachmentsComposer>
      {palette && (
        <CommandPalette
          sessionId={id}
          onClose={() => {
            setPalette(false)
            focusPrompt()
          }}
          onReplies={(text, failed) => (failed ? setError(text) : setNote(text))}
          onFill={(text) => {
            setDraft(text)
            setWantCommands(true)
          }}
        />
      )}
    </section>
  )
}

/** The permission mode, model and effort the log last recorded (`permission/mode`, `request/header`). */
function loggedSettings(events: readonly LogEvent[]): { permissionMode?: string; model?: string; effort?: string } {
  const found: { permissionMode?: string; model?: string; effort?: string } = {}
  for (let i = events.length - 1; i >= 0 && !(found.permissionMode && found.model); i--) {
    const e = events[i]
    if (e.type === 'permission/mode' && !found.permissionMode) found.permissionMode = String(e.data.mode)
    if (e.type === 'request/header' && !found.model) {
      const config = e.data.config as { model?: string; effort?: string } | undefined
      if (config?.model) found.model = config.model
      if (config?.effort) found.effort = config.effort
    }
  }
  return found
}

function focusPrompt(): void {
  document.getElementById('prompt')?.focus()
}

/** Whether a key press lands in a field that takes text (where "/" is a character, not a shortcut). */
function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null
  return !!el && (el.isContentEditable || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' || (el.tagName === 'INPUT' && (el as HTMLInputElement).type !== 'button'))
}

/** The first line of a message's first text block, for a title. */
function firstLine(content: unknown): string {
  const block = Array.isArray(content) ? (content as { type: string; text?: string }[]).find((b) => b.type === 'text') : undefined
  const line = block?.text?.trim().split('\n')[0] ?? ''
  return line.length > 80 ? `${line.slice(0, 80)}…` : line
}
