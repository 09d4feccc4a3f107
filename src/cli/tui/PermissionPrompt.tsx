import { Box, Text, useStdout } from 'ink'
import { isPasteMarker, typedChunk } from './bracketed-paste.js'
import { useEffect, useRef, useState } from 'react'
import type { KeyClaim } from './PromptEditor.js'
import type { PermissionAnswer, PermissionRequest } from '../../agent/types.js'
import { describeCall, toolLookup, type ToolLookup } from '../../frontend/render/index.js'
import { PermissionDetails } from './PermissionDetails.js'
import { theme } from './theme.js'
import { renderMarkdown } from './markdown.js'

/** Characters of the call's subject the prompt's header shows; a longer command is shown whole below it. */
const HEADER_CHARS = 100
const BUILTIN_TOOLS = toolLookup()

interface Choice {
  label: string
  key: string
  answer: 'allow-once' | 'allow-always' | 'deny' | 'deny-note'
}

const PLAN_CHOICES: Choice[] = [
  { label: 'Approve the plan, ask before edits', key: '1', answer: 'allow-once' },
  { label: 'Approve the plan and accept edits', key: '2', answer: 'allow-always' },
  { label: 'Keep planning, with feedback', key: '3', answer: 'deny-note' },
  { label: 'Keep planning', key: '4', answer: 'deny' },
]

/** A digit counts as a deliberate answer only when no typed text reached the editor for this long. */
const DELIBERATE_KEY_MS = 400

/**
 * An inline permission request: allow once, allow always (when a rule is offered), deny, deny with a note the model
 * reads. It never reads the keyboard itself: the editor below offers it each key first (`bindKeys`), and it takes
 * only its own — ↑/↓, Esc (deny), and, while the editor is empty, Enter on the highlighted choice or a choice's digit
 * pressed on its own (not in a burst of typing, not in a paste). Everything else is text for the editor: steering,
 * sent after the answer. Letters never answer, so a word typed meanwhile cannot approve anything.
 */
export function PermissionPrompt({
  request,
  onAnswer,
  tools = BUILTIN_TOOLS,
  cwd = process.cwd(),
  bindKeys,
}: {
  request: PermissionRequest
  onAnswer: (answer: PermissionAnswer) => void
  /** Finds the call's tool for its display; `cwd` is the agent's working directory, where a proposed edit is read. */
  tools?: ToolLookup
  cwd?: string
  /** Hands the editor this prompt's key handler (null when the prompt goes away). */
  bindKeys: (claim: KeyClaim | null) => void
}) {
  const { stdout } = useStdout()
  // A plan from exit_plan_mode (src/plan): allow-once approves into default, allow-always into accept-edits, and a
  // deny note is feedback the model reads as steering.
  const isPlan = request.call.name === 'exit_plan_mode'
  const choices: Choice[] = isPlan ? PLAN_CHOICES : [
    { label: 'Allow once', key: '1', answer: 'allow-once' },
    ...(request.suggestedRule
      ? [{ label: `Allow always (${request.suggestedRule})`, key: '2', answer: 'allow-always' as const }]
      : []),
    { label: 'Deny', key: request.suggestedRule ? '3' : '2', answer: 'deny' },
    { label: 'Deny with a note to the model', key: request.suggestedRule ? '4' : '3', answer: 'deny-note' },
  ]
  const [selected, setSelectedState] = useState(0)
  const [note, setNoteState] = useState<string | null>(null)
  // Keys can arrive faster than React re-renders (a paste, a fast typist): the handler reads and writes these refs
  // so no keystroke sees stale state.
  const selectedRef = useRef(selected)
  const noteRef = useRef(note)
  const answered = useRef(false)
  const setSelected = (value: number) => {
    selectedRef.current = value
    setSelectedState(value)
  }
  const setNote = (value: string | null) => {
    noteRef.current = value
    setNoteState(value)
  }
  const reply = (answer: PermissionAnswer) => {
    if (answered.current) return
    answered.current = true
    onAnswer(answer)
  }

  const choose = (choice: Choice) => {
    if (choice.answer === 'allow-once') reply({ outcome: 'allow-once' })
    else if (choice.answer === 'allow-always') reply({ outcome: 'allow-always', rule: request.suggestedRule })
    else if (choice.answer === 'deny') reply({ outcome: 'deny' })
    else setNote('')
  }

  const claim: KeyClaim = (input, key, editor) => {
    const current = noteRef.current
    if (current !== null) {
      // Writing the note: every key is the note's, pasted text included.
      if (isPasteMarker(input)) return true
      if (key.escape) setNote(null)
      else if (key.return) reply({ outcome: 'deny', note: current.trim() || undefined })
      else if (key.backspace || key.delete) setNote(current.slice(0, -1))
      else if (input && !key.ctrl && !key.meta) {
        // A note and Enter read at once are a note, then Enter.
        const typed = typedChunk(input)
        if (typed.submit) reply({ outcome: 'deny', note: (current + typed.text).trim() || undefined })
        else setNote(current + input)
      }
      return true
    }
    if (editor.pasting || isPasteMarker(input)) return false
    if (key.escape) {
      reply({ outcome: 'deny' })
      return true
    }
    if (key.upArrow || key.downArrow) {
      const step = key.upArrow ? choices.length - 1 : 1
      setSelected((selectedRef.current + step) % choices.length)
      return true
    }
    if (!editor.empty) return false
    if (key.return) {
      choose(choices[selectedRef.current])
      return true
    }
    const byKey = input.length === 1 && editor.sinceTextMs >= DELIBERATE_KEY_MS ? choices.find((c) => c.key === input) : undefined
    if (!byKey) return false
    choose(byKey)
    return true
  }
  const claimRef = useRef(claim)
  claimRef.current = claim
  useEffect(() => {
    bindKeys((input, key, editor) => claimRef.current(input, key, editor))
    return () => bindKeys(null)
  }, [bindKeys])

  const target = describeCall(tools(request.call.name), request.call.name, request.call.arguments, cwd).subject
  const header = Array.from(target).length > HEADER_CHARS ? `${Array.from(target).slice(0, HEADER_CHARS - 1).join('')}…` : target
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={theme().warn} paddingX={1}>
      {isPlan ? (
        <Text bold color={theme().warn}>
          The plan is ready for review
        </Text>
      ) : (
        <Text bold color={theme().warn}>
          Permission needed: {request.call.name}
          {header ? <Text color={theme().strong}> {header}</Text> : null}
        </Text>
      )}
      {isPlan ? null : <PermissionDetails request={request} tools={tools} cwd={cwd} shownChars={HEADER_CHARS} />}
      {isPlan ? <Text>{renderMarkdown(planOf(request), { width: (stdout.columns || 80) - 4 })}</Text> : request.reason ? <Text dimColor>{request.reason}</Text> : null}
      {note !== null ? (
        <Text>
          {isPlan ? 'Feedback' : 'Note to the model'}: {note}
          <Text inverse> </Text>
          <Text dimColor> (Enter sends, Esc goes back)</Text>
        </Text>
      ) : (
        choices.map((choice, i) => (
          <Text key={choice.key} color={i === selected ? theme().accent : undefined}>
            {i === selected ? '❯ ' : '  '}
            {choice.key}. {choice.label}
          </Text>
        ))
      )}
    </Box>
  )
}

/** The Markdown plan an exit_plan_mode call carries. */
function planOf(request: PermissionRequest): string {
  const plan = (request.call.input as { plan?: unknown } | undefined)?.plan
  return typeof plan === 'string' ? plan : request.reason
}
