import { Box, Text } from 'ink'
import type { QueuedItem } from './transcript.js'
import { theme } from './theme.js'

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

/** Messages waiting in the inbox: steering lands at the next step boundary, follow-ups after the turn. */
export function QueueList({ items, width }: { items: readonly QueuedItem[]; width: number }) {
  if (!items.length) return null
  return (
    <Box flexDirection="column">
      {items.map((item) => (
        <Text key={item.id} color={theme().warn} dimColor>
          {item.verb === 'steer' ? '⇢ steer (next step): ' : '⏎ follow-up (after turn): '}
          {oneLine(item.text, Math.max(10, width - 30))}
        </Text>
      ))}
      <Text dimColor>Up on an empty editor takes the last one back.</Text>
    </Box>
  )
}
