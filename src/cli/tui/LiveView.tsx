import { Box, Text } from 'ink'
import { useEffect, useState } from 'react'
import { ToolCardView } from './ItemView.js'
import { renderMarkdown } from './markdown.js'
import { Spinner } from './Spinner.js'
import type { LiveState } from './transcript.js'
import { counted } from '../../text/count.js'

/**
 * The last `maxLines` lines of `text` once wrapped at `width`. The live area must never be taller than the terminal:
 * ink redraws a frame taller than the screen by clearing it, which is the flicker this UI promises not to have.
 */
export function tailToFit(text: string, maxLines: number, width: number): string {
  const lines = text.split('\n')
  const out: string[] = []
  let used = 0
  for (let i = lines.length - 1; i >= 0 && used < maxLines; i--) {
    // Escape sequences take no columns; a rough strip keeps the estimate honest for styled text.
    const visible = lines[i].replace(/\x1b\[[0-9;]*m/g, '').length
    const rows = Math.max(1, Math.ceil(visible / Math.max(1, width)))
    if (used + rows > maxLines && out.length) break
    out.unshift(lines[i])
    used += rows
  }
  return out.join('\n')
}

/** Re-renders once a second while something is running, for elapsed times; returns the current time. */
function useClock(active: boolean): number {
  const [, setTick] = useState(0)
  useEffect(() => {
    if (!active) return
    const timer = setInterval(() => setTick((t) => t + 1), 1000)
    return () => clearInterval(timer)
  }, [active])
  return Date.now()
}

/** The part of the conversation still changing: streaming reasoning and text, calls being written, running tools. */
export function LiveView({ live, maxLines, width }: { live: LiveState; maxLines: number; width: number }) {
  const now = useClock(live.running.length > 0)
  const reasoningTail = live.reasoning ? tailToFit(live.reasoning.trimEnd(), 2, width - 4) : ''
  // One row for the spinner line under a step that waits on the model.
  const textBudget = Math.max(3, maxLines - (reasoningTail ? 3 : 0) - live.running.length * 3 - live.writing.length - 1)
  const text = live.text ? tailToFit(renderMarkdown(live.text, { width }), textBudget, width) : ''
  return (
    <Box flexDirection="column">
      {reasoningTail ? (
        <Text dimColor italic>
          ✻ {reasoningTail}
        </Text>
      ) : null}
      {text ? (
        <Box marginTop={1}>
          <Text>{text}</Text>
        </Box>
      ) : null}
      {live.writing.filter(Boolean).map((w, i) => (
        <Text key={i} dimColor>
          ⏺ {w.name || 'tool'} … writing arguments ({counted(w.chars, 'char')})
        </Text>
      ))}
      {live.running.map((card) => (
        <ToolCardView key={card.callId} card={card} now={now} />
      ))}
      {live.requestSince !== undefined && !live.running.length ? <Spinner since={live.requestSince} streamedChars={live.streamedChars} /> : null}
    </Box>
  )
}
