import { Box, Text, useInput } from 'ink'
import { useState } from 'react'

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
  const [filter, setFilter] = useState('')
  const [selected, setSelected] = useState(0)
  const lower = filter.toLowerCase()
  const shown = choices.filter((c) => `${c.label} ${c.detail ?? ''} ${c.value}`.toLowerCase().includes(lower))
  const index = Math.min(selected, Math.max(0, shown.length - 1))

  useInput((input, key) => {
    if (key.escape) return onClose()
    if (key.return) {
      if (shown[index]) onPick(shown[index].value)
      return
    }
    if (key.upArrow) return setSelected(Math.max(0, index - 1))
    if (key.downArrow) return setSelected(Math.min(shown.length - 1, index + 1))
    if (key.backspace || key.delete) {
      setFilter((f) => f.slice(0, -1))
      return setSelected(0)
    }
    if (input && !key.ctrl && !key.meta && !key.tab) {
      setFilter((f) => f + input)
      setSelected(0)
    }
  })

  const first = Math.max(0, Math.min(index - Math.floor(VISIBLE / 2), shown.length - VISIBLE))
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="cyan" paddingX={1}>
      <Text bold>
        {title} <Text dimColor>{filter ? `filter: ${filter}` : 'type to filter · Enter picks · Esc closes'}</Text>
      </Text>
      {shown.length === 0 ? <Text dimColor>Nothing matches.</Text> : null}
      {shown.slice(first, first + VISIBLE).map((c, i) => (
        <Text key={c.value} color={first + i === index ? 'cyan' : undefined} wrap="truncate-end">
          {first + i === index ? '❯ ' : '  '}
          {c.label}
          {c.detail ? <Text dimColor> {c.detail}</Text> : null}
        </Text>
      ))}
    </Box>
  )
}
