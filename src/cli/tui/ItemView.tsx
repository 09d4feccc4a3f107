import { Box, Text, useStdout } from 'ink'
import { memo, type ReactElement } from 'react'
import type { Item, ToolCard } from './transcript.js'
import { renderMarkdown } from './markdown.js'
import { formatDuration, plainLine } from '../../frontend/render/index.js'
import { SANDBOXED_LABEL } from '../../sandbox/result-mark.js'
import { counted } from '../../text/count.js'
import { summarizeChanges } from '../../checkpoints/describe-changes.js'
import { theme } from './theme.js'

/** Diff lines shown on a card; the whole diff stays in the log and in `/export`. */
const DIFF_LINES = 24

const TURN_END_TEXT: Record<string, string> = {
  aborted: 'Cancelled.',
  interrupted: 'The turn was interrupted (Rein stopped while it ran).',
  'max-tokens': 'The answer hit the output limit and was cut short.',
  blocked: 'The turn was blocked.',
  error: 'The turn failed.',
}

function firstLine(text: string, max = 100): string {
  const line = text.trim().split('\n')[0] ?? ''
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

function lineCount(text: string): number {
  return text.trim() ? text.trim().split('\n').length : 0
}

/** One finished conversation item. Rendered once into the scrollback, so it must not depend on later state. */
export const ItemView = memo(function ItemView({ item }: { item: Item }) {
  const columns = useStdout().stdout.columns || 80
  switch (item.kind) {
    case 'user':
      return item.via === 'steering' ? (
        <Box marginTop={1}>
          <Text color={theme().warn}>↳ steered: </Text>
          <Text>{item.text}</Text>
        </Box>
      ) : (
        <Box marginTop={1}>
          <Text bold color={theme().accent}>
            ›{' '}
          </Text>
          <Text bold>{item.text}</Text>
        </Box>
      )
    case 'context':
      return (
        <Text dimColor>
          ⟐ {item.label === 'hook' ? 'hook' : `context · ${item.label}`}: {firstLine(item.text, 80)}
          {lineCount(item.text) > 1 ? ` (+${counted(lineCount(item.text) - 1, 'line')}, Ctrl+O)` : ''}
        </Text>
      )
    case 'reasoning':
      return (
        <Text dimColor italic>
          ✻ thought: {firstLine(item.text, 80)} ({counted(lineCount(item.text), 'line')}, Ctrl+O)
        </Text>
      )
    case 'assistant':
      return (
        <Box marginTop={1} flexDirection="column">
          <Text>{renderMarkdown(item.text, { width: columns })}</Text>
          {item.interrupted ? <Text dimColor>(interrupted)</Text> : null}
        </Box>
      )
    case 'tool':
      return <ToolCardView card={item.card} />
    case 'notice':
      return (
        <Text color={item.level === 'error' ? theme().error : item.level === 'warning' ? theme().warn : undefined} dimColor={item.level === 'info'}>
          {item.level === 'error' ? '✗ ' : item.level === 'warning' ? '! ' : '· '}
          {item.text}
        </Text>
      )
    case 'turn-end':
      return (
        <Text color={item.reason === 'aborted' ? theme().warn : theme().error}>
          {item.reason === 'aborted' ? '■ ' : '✗ '}
          {item.message ?? TURN_END_TEXT[item.reason] ?? `The turn ended: ${item.reason}.`}
        </Text>
      )
    case 'changes':
      return <Text dimColor>  ± {summarizeChanges(item.paths)}</Text>
    case 'expanded':
      return (
        <Box flexDirection="column" borderStyle="round" borderDimColor paddingX={1}>
          <Text dimColor>{item.title}</Text>
          <Text>{item.markdown ? renderMarkdown(item.text, { width: columns - 4 }) : item.text}</Text>
        </Box>
      )
  }
})

/** The hunks of a unified diff without its file header lines (`Index:`, `===`, `---`, `+++`): the card names the file. */
function diffBody(diff: string): string[] {
  const lines = diff.split('\n')
  const firstHunk = lines.findIndex((l) => l.startsWith('@@'))
  return (firstHunk >= 0 ? lines.slice(firstHunk) : lines).filter((l) => l !== '' && !l.startsWith('\\ No newline'))
}

function statusMark(card: ToolCard): ReactElement {
  if (card.status === 'running') return <Text color={theme().warn}>…</Text>
  if (card.status === 'error') return <Text color={theme().error}>✗</Text>
  return <Text color={theme().ok}>✓</Text>
}

/** A compact tool card: name, target, status, duration; then a diff or an output tail. */
export function ToolCardView({ card, now }: { card: ToolCard; now?: number }) {
  const duration = card.durationMs ?? (now !== undefined ? Math.max(0, now - card.startedAt) : undefined)
  const diff = card.diff ? diffBody(card.diff) : []
  const shownDiff = diff.slice(0, DIFF_LINES)
  return (
    <Box flexDirection="column">
      <Text>
        <Text color={theme().tool}>⏺ {card.name}</Text>
        {card.target ? <Text> {card.target}</Text> : null} {statusMark(card)}
        {duration !== undefined ? <Text dimColor> {formatDuration(duration)}</Text> : null}
        {card.sandbox ? <Text color={theme().accent}> · {SANDBOXED_LABEL}</Text> : null}
        {card.summary && card.status === 'ok' ? <Text dimColor> · {card.summary}</Text> : null}
      </Text>
      {card.error ? <Text color={theme().error}>  └ {card.error}</Text> : null}
      {card.sandbox?.note ? (
        <Box paddingLeft={2}>
          <Text color={theme().warn}>⛨ {card.sandbox.note}</Text>
        </Box>
      ) : null}
      {shownDiff.map((line, i) => (
        <Text key={i} color={line.startsWith('+') ? theme().added : line.startsWith('-') ? theme().removed : undefined} dimColor={line.startsWith('@@')}>
          {'  '}
          {line}
        </Text>
      ))}
      {diff.length > shownDiff.length ? <Text dimColor>  … {diff.length - shownDiff.length} more diff lines</Text> : null}
      {!card.error && card.tail.length ? (
        <Box flexDirection="column">
          {card.hiddenLines ? <Text dimColor>  │ … {counted(card.hiddenLines, 'more line')} (Ctrl+O)</Text> : null}
          {card.tail.map((line, i) => (
            <Text key={i} dimColor wrap="truncate-end">
              {'  │ '}
              {plainLine(line, 400)}
            </Text>
          ))}
        </Box>
      ) : null}
    </Box>
  )
}
