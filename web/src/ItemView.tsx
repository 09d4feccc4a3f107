import { markdownHtml, streamingMarkdownHtml } from './markdown'
import type { Item } from './transcript'
import { StepChanges } from './StepChanges'
import { DiffView } from './DiffView'
import { SANDBOXED_LABEL } from '../../src/sandbox/result-mark'
import { counted } from '../../src/text/count.js'
import { CopyButton } from './CopyButton'

const LABEL: Record<'user' | 'context' | 'steering', string> = {
  user: 'You',
  context: 'Injected context',
  steering: 'Steering',
}

function Markdown({ text }: { text: string }) {
  return <div class="md" dangerouslySetInnerHTML={{ __html: markdownHtml(text) }} />
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2)
  } catch {
    // Not JSON (a model can write anything): shown as written.
    return text
  }
}

/** One transcript entry. Injected context and steering say so, with their producer; forks start at a message. */
export function ItemView({
  item,
  onFork,
  onRewind,
  sessionId,
}: {
  item: Item
  onFork: (seq: number) => void
  /** Offered on a prompt that opened a turn: go back to that turn's start. */
  onRewind?: (turn: number) => void
  sessionId: string
}) {
  switch (item.kind) {
    case 'user':
    case 'context':
    case 'steering': {
      const label = item.summary ? 'Compaction summary' : LABEL[item.kind]
      // What the runtime-context producer injects every turn (date, git state) is a quiet note, not a card: the
      // terminal UI hides it too. It stays readable, verbatim, one click away.
      if (item.kind === 'context' && item.source === 'runtime-context' && !item.summary) {
        return (
          <details class="note" aria-label="Runtime context">
            <summary>
              runtime context <span class="seq">seq {item.seq}</span>
            </summary>
            <pre>{item.text}</pre>
          </details>
        )
      }
      return (
        <article class={`msg ${item.kind}${item.summary ? ' summary' : ''}`} aria-label={label}>
          <header>
            <strong>{label}</strong>
            {item.source && item.source !== 'user' && <span class="tag">from {item.source}</span>}
            <span class="seq">seq {item.seq}</span>
            <button type="button" class="link" onClick={() => onFork(item.seq)} aria-label={`Fork here (seq ${item.seq})`}>
              Fork here
            </button>
            {item.kind === 'user' && <CopyButton text={() => item.text} what="prompt" />}
            {item.kind === 'user' && item.turn !== undefined && onRewind && (
              <button type="button" class="link" onClick={() => onRewind(item.turn as number)} aria-label={`Rewind to here (turn ${item.turn})`}>
                Rewind to here
              </button>
            )}
          </header>
          {item.kind === 'user' ? <Markdown text={item.text} /> : item.kind === 'steering' ? <pre>{item.text}</pre> : <details><summary>{firstLine(item.text)}</summary><pre>{item.text}</pre></details>}
          {item.images > 0 && <p class="muted">({counted(item.images, 'image')})</p>}
        </article>
      )
    }
    case 'assistant':
      return (
        <article class="msg assistant" aria-label="Assistant">
          <header>
            <strong>Assistant</strong>
            <span class="seq">seq {item.seq} · turn {item.turn} step {item.step}</span>
            {item.text && <CopyButton text={() => item.text} what="reply" />}
            <button type="button" class="link" onClick={() => onFork(item.seq)} aria-label={`Fork here (seq ${item.seq})`}>
              Fork here
            </button>
          </header>
          {item.reasoning && (
            <details class="reasoning">
              <summary>Reasoning</summary>
              <pre>{item.reasoning}</pre>
            </details>
          )}
          {item.text && <Markdown text={item.text} />}
          {item.interrupted && <p class="muted">(interrupted)</p>}
        </article>
      )
    case 'streaming':
      return (
        <article class="msg assistant streaming" aria-label="Assistant, writing" aria-busy="true">
          <header>
            <strong>Assistant</strong> <span class="muted">writing…</span>
          </header>
          {item.reasoning && (
            <details class="reasoning">
              <summary>Reasoning</summary>
              <pre>{item.reasoning}</pre>
            </details>
          )}
          {item.text && <div class="md stream-text" dangerouslySetInnerHTML={{ __html: streamingMarkdownHtml(item.key, item.text) }} />}
          {item.tools && <pre class="muted">{item.tools}</pre>}
        </article>
      )
    case 'tool':
      return (
        <article class={`tool ${toolState(item)}`} aria-label={`Tool ${item.name}`}>
          <details open={item.output === undefined || item.diff !== undefined}>
            <summary>
              <strong>{item.name}</strong> {toolSubject(item)}{' '}
              <span class="muted status">{item.output === undefined ? 'running…' : item.cancelled ? 'cancelled' : item.isError ? 'failed' : item.summary ? `done · ${item.summary}` : 'done'}</span>
              {item.sandbox && <span class="tag sandboxed" title="ran inside the sandbox (docs/sandbox.md)">{SANDBOXED_LABEL}</span>}
            </summary>
            <h4>Input</h4>
            <pre>{prettyJson(item.input)}</pre>
            {item.progress && item.output === undefined && <pre class="progress">{item.progress}</pre>}
            {item.diff && (
              <>
                <h4>Diff</h4>
                <DiffView diff={item.diff} />
              </>
            )}
            {item.output !== undefined && (
              <>
                <h4>Output</h4>
                <pre>{item.output || '(no output)'}</pre>
              </>
            )}
          </details>
          {item.sandbox?.note && (
            <p class="sandbox-note" role="status">
              {item.sandbox.note}
            </p>
          )}
        </article>
      )
    case 'changes':
      return <StepChanges sessionId={sessionId} turn={item.turn} step={item.step} paths={item.paths} />
    case 'notice':
      return (
        <p class={`notice ${item.level}`} role={item.level === 'error' ? 'alert' : 'status'}>
          {item.text}
        </p>
      )
  }
}

function toolState(item: Extract<Item, { kind: 'tool' }>): string {
  return item.output === undefined ? 'running' : item.cancelled ? 'cancelled' : item.isError ? 'failed' : 'done'
}

function firstLine(text: string): string {
  const line = text.split('\n').find((l) => l.trim()) ?? ''
  return line.length > 120 ? `${line.slice(0, 120)}…` : line
}

/** What the call acts on, from its tool's own display (a command set as code); arguments only from a server without it. */
function toolSubject(item: Extract<Item, { kind: 'tool' }>) {
  if (item.title === undefined) return <code>{summaryOf(item.input)}</code>
  if (!item.subject) return null
  return item.command ? <code>{item.subject}</code> : <span class="subject">{item.subject}</span>
}

function summaryOf(input: string): string {
  const text = input.replace(/\s+/g, ' ')
  return text.length > 100 ? `${text.slice(0, 100)}…` : text
}
