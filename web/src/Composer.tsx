/**
 * The prompt box. Enter sends: while the agent works that steers the running turn (it reaches the model at the next
 * step boundary), while idle it starts a turn. Shift+Enter is a new line; the second button queues a follow-up that
 * gets its own turn.
 */
export function Composer({
  busy,
  send,
  text,
  setText,
}: {
  busy: boolean
  send: (text: string, how: 'enter' | 'followUp') => Promise<boolean>
  text: string
  setText: (text: string) => void
}) {
  const submit = async (how: 'enter' | 'followUp'): Promise<void> => {
    if (!text.trim()) return
    const sent = text
    setText('')
    if (!(await send(sent, how))) setText(sent)
  }
  return (
    <form
      class="composer"
      onSubmit={(e) => {
        e.preventDefault()
        void submit('enter')
      }}
    >
      <label for="prompt" class="sr-only">
        {busy ? 'Steer the running turn' : 'Prompt'}
      </label>
      <textarea
        id="prompt"
        rows={3}
        value={text}
        aria-keyshortcuts="/"
        placeholder={busy ? 'Enter steers the running turn; Shift+Enter for a new line' : 'Ask Rein… (Enter sends, Shift+Enter for a new line)'}
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
            e.preventDefault()
            void submit('enter')
          }
        }}
      />
      <div class="row">
        <button type="submit">{busy ? 'Steer' : 'Send'}</button>
        <button type="button" onClick={() => void submit('followUp')}>
          Queue follow-up
        </button>
      </div>
    </form>
  )
}
