import type { ComponentChildren } from 'preact'
import { AttachmentBar, type Attachments } from './Attachments'
import { MentionList, useMentions } from './Mentions'
import './panels.css'

/**
 * Attachments and `@` completion around the composer, without reaching into it: the prompt's events bubble here
 * (paste, drop, input and caret moves), and the keys the `@` list takes (arrows, Tab, Enter, Esc) are caught in the
 * capture phase, before the composer's own handler sees them.
 */
export function AttachmentsComposer({
  sessionId,
  attachments,
  text,
  setText,
  children,
}: {
  sessionId: string
  attachments: Attachments
  text: string
  setText: (text: string) => void
  children: ComponentChildren
}) {
  const mentions = useMentions(sessionId, text, setText)
  const fromPrompt = (e: Event): boolean => {
    const target = e.target as HTMLElement | null
    if (target?.id !== 'prompt') return false
    mentions.ref.current = target as HTMLTextAreaElement
    return true
  }
  const track = (e: Event): void => {
    if (fromPrompt(e)) mentions.track()
  }
  return (
    <div
      class="composer-extras"
      onPaste={attachments.onPaste}
      onDrop={attachments.onDrop}
      onDragOver={attachments.onDragOver}
      onInput={track}
      onClick={track}
      onKeyUp={track}
      onKeyDownCapture={(e) => {
        if (fromPrompt(e) && mentions.onKeyDown(e)) e.stopPropagation()
      }}
    >
      <AttachmentBar attachments={attachments} />
      <MentionList mentions={mentions} />
      {children}
    </div>
  )
}

/**
 * The composer's `send` with the staged attachments: a prompt with attachments or an `@` mention goes where they are
 * read (`POST …/prompt`, routes-attachments.ts), any other as before (`POST …/input`). Staged files are cleared once
 * a prompt took them.
 */
export function sendWith(
  attachments: Attachments,
  act: (path: string, body: unknown) => Promise<unknown>,
): (text: string, how: 'enter' | 'followUp') => Promise<boolean> {
  return async (text, how) => {
    const ids = attachments.ids()
    const sent = ids.length || /(?:^|\s)@\S/.test(text) ? await act('prompt', { text, how, attachments: ids }) : await act('input', { text, how })
    if (sent !== undefined && ids.length) attachments.clear()
    return sent !== undefined
  }
}
