import { useState } from 'preact/hooks'
import type { CatalogCommand } from './api'
import { Icon } from './icons'

/** A built-in named by `/name args` at the start of the prompt (by name or alias), with its arguments. */
function builtinOf(text: string, commands: readonly CatalogCommand[] | undefined): { command: CatalogCommand; args: string } | undefined {
  const m = /^\/([\w:-]+)(?:\s+([\s\S]*))?$/.exec(text.trim())
  const command = m && commands?.find((c) => c.name === m[1] || c.aliases.includes(m[1]))
  return command && m ? { command, args: (m[2] ?? '').trim() } : undefined
}

/**
 * The prompt box. Enter sends: while the agent works that steers the running turn (it reaches the model at the next
 * step boundary), while idle it starts a turn. Shift+Enter is a new line; the second button queues a follow-up that
 * gets its own turn. A `/` at the start lists the catalog's commands (by name); `/name args` runs that built-in.
 */
export function Composer({
  busy,
  send,
  text,
  setText,
  commands,
  wantCommands,
  runCommand,
}: {
  busy: boolean
  send: (text: string, how: 'enter' | 'followUp') => Promise<boolean>
  text: string
  setText: (text: string) => void
  /** The session's built-in commands, once asked for (`wantCommands`, on the first `/`). */
  commands?: readonly CatalogCommand[]
  wantCommands: () => void
  runCommand: (name: string, args: string) => Promise<boolean>
}) {
  const [chosen, setChosen] = useState(0)
  const [dismissed, setDismissed] = useState(false)
  const typed = /^\/([\w:-]*)$/.exec(text)
  const suggestions = typed && !dismissed ? (commands ?? []).filter((c) => c.name.startsWith(typed[1]) || c.aliases.some((a) => a.startsWith(typed[1]))) : []

  const submit = async (how: 'enter' | 'followUp'): Promise<void> => {
    if (!text.trim()) return
    const sent = text
    setText('')
    const builtin = how === 'enter' ? builtinOf(sent, commands) : undefined
    const ok = builtin ? await runCommand(builtin.command.name, builtin.args) : await send(sent, how)
    if (!ok) setText(sent)
  }
  const pick = (command: CatalogCommand): void => {
    setChosen(0)
    if (command.hint) setText(`/${command.name} `)
    else {
      setText('')
      void runCommand(command.name, '').then((ok) => ok || setText(`/${command.name}`))
    }
  }
  return (
    <form
      class={`composer${busy ? ' busy' : ''}`}
      onSubmit={(e) => {
        e.preventDefault()
        void submit('enter')
      }}
    >
      {suggestions.length > 0 && (
        <ul class="slash" role="listbox" id="slash-list" aria-label="Commands">
          {suggestions.map((c, i) => (
            <li key={c.name} id={`slash-${c.name}`} role="option" aria-selected={i === chosen} onMouseDown={(e) => (e.preventDefault(), pick(c))}>
              <code>/{c.name}</code>
              {c.hint && <span class="muted">{c.hint}</span>}
              <span class="muted">{c.help}</span>
            </li>
          ))}
        </ul>
      )}
      <label for="prompt" class="sr-only">
        {busy ? 'Steer the running turn' : 'Prompt'}
      </label>
      <textarea
        id="prompt"
        rows={3}
        value={text}
        aria-keyshortcuts="/"
        aria-controls={suggestions.length ? 'slash-list' : undefined}
        aria-activedescendant={suggestions[chosen] ? `slash-${suggestions[chosen].name}` : undefined}
        placeholder={busy ? 'Enter steers the running turn; Shift+Enter for a new line' : 'Ask Rein… (Enter sends, Shift+Enter for a new line, / for commands)'}
        onInput={(e) => {
          const value = e.currentTarget.value
          setText(value)
          setDismissed(false)
          setChosen(0)
          if (value.startsWith('/')) wantCommands()
        }}
        onKeyDown={(e) => {
          if (suggestions.length && (e.key === 'ArrowDown' || e.key === 'ArrowUp')) {
            e.preventDefault()
            setChosen((c) => (e.key === 'ArrowDown' ? Math.min(c + 1, suggestions.length - 1) : Math.max(c - 1, 0)))
          } else if (suggestions.length && (e.key === 'Tab' || (e.key === 'Enter' && !e.shiftKey && text !== `/${suggestions[chosen].name}`))) {
            e.preventDefault()
            pick(suggestions[chosen])
          } else if (e.key === 'Escape' && suggestions.length) {
            setDismissed(true)
          } else if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
            e.preventDefault()
            void submit('enter')
          }
        }}
      />
      <div class="row">
        <button type="submit" class="primary">
          <Icon name="send" /> {busy ? 'Steer' : 'Send'}
        </button>
        <button type="button" onClick={() => void submit('followUp')}>
          Queue follow-up
        </button>
        <span class="hint">
          <kbd>Ctrl</kbd>+<kbd>K</kbd> commands · <kbd>Esc</kbd> cancels
        </span>
      </div>
    </form>
  )
}
