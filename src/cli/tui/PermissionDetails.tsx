import { Box, Text } from 'ink'
import { useEffect, useState } from 'react'
import type { PermissionRequest } from '../../agent/types.js'
import { counted, permissionQuestion, type PermissionQuestion, type ToolLookup } from '../../frontend/render/index.js'
import { theme } from './theme.js'

/** Diff lines a permission prompt shows; the rest is counted. The whole diff is what the editor or `/export` shows. */
const QUESTION_DIFF_LINES = 40

/**
 * What a permission prompt shows of the call beyond its header: the whole command when the header had to cut it
 * (wrapped, never cut), and the diff of an edit or write, read from the file as it is now before anything is approved.
 */
export function PermissionDetails({ request, tools, cwd, shownChars }: { request: PermissionRequest; tools: ToolLookup; cwd: string; shownChars: number }) {
  const [question, setQuestion] = useState<PermissionQuestion | undefined>(undefined)
  useEffect(() => {
    let live = true
    void permissionQuestion(request, tools(request.call.name), cwd).then(
      (q) => live && setQuestion(q),
      () => undefined,
    )
    return () => {
      live = false
    }
  }, [request, tools, cwd])
  if (!question) return null
  const command = question.command
  const longCommand = command !== undefined && (command.includes('\n') || Array.from(command).length > shownChars)
  const diff = question.change?.diff ? diffLines(question.change.diff) : []
  const shown = diff.slice(0, QUESTION_DIFF_LINES)
  return (
    <Box flexDirection="column">
      {longCommand ? (
        <Box borderStyle="single" borderDimColor paddingX={1}>
          <Text wrap="wrap">{command}</Text>
        </Box>
      ) : null}
      {question.change && !question.change.diff ? (
        <Text dimColor>The change to {question.change.shown} is too large to show as a diff.</Text>
      ) : null}
      {shown.map((line, i) => (
        <Text key={i} color={line.startsWith('+') ? theme().added : line.startsWith('-') ? theme().removed : undefined} dimColor={line.startsWith('@@')}>
          {line}
        </Text>
      ))}
      {diff.length > shown.length ? <Text dimColor>… {counted(diff.length - shown.length, 'more diff line')}</Text> : null}
    </Box>
  )
}

/** The lines of a unified diff from its first hunk on (the prompt's header already names the file). */
function diffLines(diff: string): string[] {
  const lines = diff.split('\n')
  const first = lines.findIndex((l) => l.startsWith('@@'))
  return (first >= 0 ? lines.slice(first) : lines).filter((l) => l !== '' && !l.startsWith('\\ No newline'))
}
