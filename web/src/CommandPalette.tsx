import { useEffect, useRef, useState } from 'preact/hooks'
import { listCommands, runCommand, type CatalogCommand } from './api'
import { matchingCommands } from './command-match'

/** The commands of one session, asked of the server once (`GET /api/sessions/:id/commands`). */
export function useCommands(sessionId: string, wanted: boolean): CatalogCommand[] | undefined {
  const [commands, setCommands] = useState<CatalogCommand[]>()
  useEffect(() => {
    if (!wanted || commands) return
    listCommands(sessionId).then(setCommands, () => setCommands([]))
  }, [sessionId, wanted])
  return commands
}

/**
 * Ctrl+K: every built-in command the session offers on the web, from the one command catalog (nothing listed here).
 * Enter runs the chosen one (`POST /api/sessions/:id/commands`); a command that takes an argument goes to the prompt
 * as `/name ` to be completed there.
 */
export function CommandPalette({
  sessionId,
  onClose,
  onReplies,
  onFill,
}: {
  sessionId: string
  onClose: () => void
  onReplies: (text: string, failed: boolean) => void
  onFill: (text: string) => void
}) {
  const commands = useCommands(sessionId, true)
  const [query, setQuery] = useState('')
  const [chosen, setChosen] = useState(0)
  const input = useRef<HTMLInputElement>(null)
  useEffect(() => input.current?.focus(), [])
  const shown = matchingCommands(commands ?? [], query)

  const run = async (command: CatalogCommand | undefined): Promise<void> => {
    if (!command) return
    onClose()
    if (command.hint) return onFill(`/${command.name} `)
    try {
      const replies = await runCommand(sessionId, command.name)
      onReplies(replies.map((r) => (r.title ? `${r.title}\n${r.text}` : r.text)).join('\n\n') || `/${command.name} done.`, false)
    } catch (e) {
      onReplies((e as Error).message, true)
    }
  }

  return (
    <div class="palette-scrim" onClick={(e) => e.target === e.currentTarget && onClose()}>
      <div class="palette" role="dialog" aria-modal="true" aria-label="Commands">
        <input
          ref={input}
          role="combobox"
          aria-expanded="true"
          aria-controls="palette-list"
          aria-activedescendant={shown[chosen] ? `palette-${shown[chosen].name}` : undefined}
          aria-label="Command"
          placeholder="Type a command…"
          value={query}
          onInput={(e) => {
            setQuery(e.currentTarget.value)
            setChosen(0)
          }}
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              e.preventDefault()
              e.stopPropagation()
              onClose()
            } else if (e.key === 'ArrowDown') {
              e.preventDefault()
              setChosen((c) => Math.min(c + 1, shown.length - 1))
            } else if (e.key === 'ArrowUp') {
              e.preventDefault()
              setChosen((c) => Math.max(c - 1, 0))
            } else if (e.key === 'Enter') {
              e.preventDefault()
              void run(shown[chosen])
            }
          }}
        />
        {!commands ? (
          <p class="muted empty">Loading commands…</p>
        ) : !shown.length ? (
          <p class="muted empty">No command matches.</p>
        ) : (
          <ul id="palette-list" role="listbox" aria-label="Commands">
            {shown.map((c, i) => (
              <li key={c.name} id={`palette-${c.name}`} role="option" aria-selected={i === chosen} onMouseEnter={() => setChosen(i)} onClick={() => void run(c)}>
                <code>/{c.name}</code>
                {c.hint && <span class="muted">{c.hint}</span>}
                <span class="muted">{c.help}</span>
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  )
}
