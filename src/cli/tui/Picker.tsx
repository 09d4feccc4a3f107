import { Box, Text, useInput } from 'ink'
import { isPasteMarker, typedChunk } from './bracketed-paste.js'
import { useRef, useState } from 'react'
import { theme } from './theme.js'

export interface PickerChoice {
  label: string
  detail?: string
  value: string
}

const VISIBLE = 8

/** A filterable list (`/resume`, `/fork`): typing filters, arrows move, Enter picks, Esc closes. */
export function Picker({
  title,
  choices,
  onPick,
  onClose,
}: {
  title: string
  choices: readonly PickerChoice[]
  onPick: (value: string) => void
  onClose: () => void
}) {
  const [view, setViewState] = useState({ filter: '', selected: 0 })
  // Typed keys can outrun re-renders; the handler works on the ref so none is lost.
  const viewRef = useRef(view)
  const setView = (next: { filter: string; selected: number }) => {
    viewRef.current = next
    setViewState(next)
  }
  const visible = (filter: string) =>
    choices.filter((c) => `${c.label} ${c.detail ?? ''} ${c.value}`.toLowerCase().includes(filter.toLowerCase()))
  const { filter } = view
  const shown = visible(filter)
  const index = Math.min(view.selected, Math.max(0, shown.length - 1))

  useInput((input, key) => {
    if (isPasteMarker(input)) return
    const now = viewRef.current
    const list = visible(now.filter)
    const at = Math.min(now.selected, Math.max(0, list.length - 1))
    if (key.escape) return onClose()
    if (key.return) {
      if (list[at]) onPick(list[at].value)
      return
    }
    if (key.upArrow) return setView({ ...now, selected: Math.max(0, at - 1) })
    if (key.downArrow) return setView({ ...now, selected: Math.min(list.length - 1, at + 1) })
    if (key.backspace || key.delete) return setView({ filter: now.filter.slice(0, -1), selected: 0 })
    if (!input || key.ctrl || key.meta || key.tab) return
    // Text and Enter read at once (typed fast, a laggy link) filter, then pick, as they would one key at a time.
    const typed = typedChunk(input)
    const filter = now.filter + typed.text.replace(/[\r\n]/g, '')
    setView({ filter, selected: 0 })
    const pick = visible(filter)[0]
    if (typed.submit && pick) onPick(pick.value)
  })

  const first = Math.max(0, Math.min(index - Math.floor(VISIBLE / 2), shown.length - VISIBLE))
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={theme().accent} paddingX={1}>
      <Text bold>
        {title} <Text dimColor>· {filter ? `filter: ${filter}` : 'type to filter · Enter picks · Esc closes'}</Text>
      </Text>
      {shown.length === 0 ? <Text dimColor>Nothing matches.</Text> : null}
      {shown.slice(first, first + VISIBLE).map((c, i) => (
        <Text key={c.value} color={first + i === index ? theme().accent : undefined} wrap="truncate-end">
          {first + i === index ? '❯ ' : '  '}
          {c.label}
          {c.detail ? <Text dimColor> {c.detail}</Text> : null}
        </Text>
      ))}
    </Box>
  )
}
