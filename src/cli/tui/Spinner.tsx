import { Text } from 'ink'
import { useEffect, useState } from 'react'
import { grouped } from '../../text/count.js'
import { formatDuration } from '../../frontend/render/index.js'
import { theme } from './theme.js'

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']
/** How often the spinner turns: often enough to look alive, rarely enough to cost nothing next to streaming. */
const TICK_MS = 200
/** A rough characters-per-token ratio for the live estimate; the footer's figures are the provider's own counts. */
const CHARS_PER_TOKEN = 4

/**
 * The line under a step that waits on the model: a turning spinner, the time since the step's request went out and,
 * once anything streamed, an estimate of the tokens received. It redraws itself only, on its own timer.
 */
export function Spinner({ since, streamedChars }: { since: number; streamedChars: number }) {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), TICK_MS)
    return () => clearInterval(timer)
  }, [])
  const elapsed = Math.max(0, now - since)
  const frame = FRAMES[Math.floor(elapsed / TICK_MS) % FRAMES.length]
  const tokens = Math.round(streamedChars / CHARS_PER_TOKEN)
  return (
    <Text color={theme().accent}>
      {frame} <Text dimColor>{streamedChars ? 'receiving' : 'waiting for the model'} · {formatDuration(elapsed)}</Text>
      {streamedChars ? <Text dimColor> · ↓ ~{grouped(tokens)} tokens</Text> : null}
      <Text dimColor> · Esc cancels</Text>
    </Text>
  )
}
