import { Box, Text, useInput } from 'ink'
import { useState } from 'react'
import type { PermissionAnswer, PermissionRequest } from '../../agent/types.js'
import { toolCardTarget } from './tool-card-info.js'

interface Choice {
  label: string
  key: string
  answer: 'allow-once' | 'allow-always' | 'deny' | 'deny-note'
}

/**
 * An inline permission request: allow once, allow always (when a rule is offered), deny, deny with a note the model
 * reads. Keys: the digit, `y`/`n`, arrows and Enter; Esc denies.
 */
export function PermissionPrompt({
  request,
  onAnswer,
}: {
  request: PermissionRequest
  onAnswer: (answer: PermissionAnswer) => void
}) {
  const choices: Choice[] = [
    { label: 'Allow once', key: '1', answer: 'allow-once' },
    ...(request.suggestedRule
      ? [{ label: `Allow always (${request.suggestedRule})`, key: '2', answer: 'allow-always' as const }]
      : []),
    { label: 'Deny', key: request.suggestedRule ? '3' : '2', answer: 'deny' },
    { label: 'Deny with a note to the model', key: request.suggestedRule ? '4' : '3', answer: 'deny-note' },
  ]
  const [selected, setSelected] = useState(0)
  const [note, setNote] = useState<string | null>(null)

  const choose = (choice: Choice) => {
    if (choice.answer === 'allow-once') onAnswer({ outcome: 'allow-once' })
    else if (choice.answer === 'allow-always') onAnswer({ outcome: 'allow-always', rule: request.suggestedRule })
    else if (choice.answer === 'deny') onAnswer({ outcome: 'deny' })
    else setNote('')
  }

  useInput((input, key) => {
    console.error("PP got", JSON.stringify(input))
    if (note !== null) {
      if (key.escape) setNote(null)
      else if (key.return) onAnswer({ outcome: 'deny', note: note.trim() || undefined })
      else if (key.backspace || key.delete) setNote(note.slice(0, -1))
      else if (input && !key.ctrl && !key.meta) setNote(note + input)
      return
    }
    if (key.escape) return onAnswer({ outcome: 'deny' })
    if (key.upArrow) return setSelected((s) => (s + choices.length - 1) % choices.length)
    if (key.downArrow) return setSelected((s) => (s + 1) % choices.length)
    if (key.return) return choose(choices[selected])
    if (input === 'y') return choose(choices[0])
    if (input === 'n') return onAnswer({ outcome: 'deny' })
    const byKey = choices.find((c) => c.key === input)
    if (byKey) choose(byKey)
  })

  const target = toolCardTarget(request.call.name, request.call.arguments, 100)
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="yellow" paddingX={1}>
      <Text bold color="yellow">
        Permission needed: {request.call.name}
        {target ? <Text color="white"> {target}</Text> : null}
      </Text>
      {request.reason ? <Text dimColor>{request.reason}</Text> : null}
      {note !== null ? (
        <Text>
          Note to the model: {note}
          <Text inverse> </Text>
          <Text dimColor> (Enter sends, Esc goes back)</Text>
        </Text>
      ) : (
        choices.map((choice, i) => (
          <Text key={choice.key} color={i === selected ? 'cyan' : undefined}>
            {i === selected ? '❯ ' : '  '}
            {choice.key}. {choice.label}
          </Text>
        ))
      )}
    </Box>
  )
}
