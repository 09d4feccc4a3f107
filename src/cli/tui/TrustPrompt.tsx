import { Box, Text, useApp, useInput } from 'ink'
import { useRef } from 'react'
import { theme } from './theme.js'

/**
 * Asked once, before the conversation, when the workspace defines allow rules, modes, directories, hooks or MCP
 * servers the user has not trusted: it lists them, `y` trusts the workspace (recorded, asked again after an edit),
 * `n` or Esc starts without them.
 */
export function TrustPrompt({
  dir,
  changed,
  grants,
  onAnswer,
}: {
  dir: string
  changed: boolean
  grants: readonly string[]
  onAnswer: (trust: boolean) => void
}) {
  const { exit } = useApp()
  const answered = useRef(false)
  useInput((input, key) => {
    if (answered.current) return
    const yes = input.toLowerCase() === 'y'
    const no = input.toLowerCase() === 'n' || key.escape || (key.ctrl && input === 'c')
    if (!yes && !no) return
    answered.current = true
    onAnswer(yes)
    exit()
  })
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={theme().warn} paddingX={1}>
      <Text bold>
        {changed ? 'This workspace changed since you trusted it: ' : 'Do you trust this workspace? '}
        <Text color={theme().accent}>{dir}</Text>
      </Text>
      <Text>It defines what Rein would otherwise never run or allow without asking:</Text>
      {grants.map((grant, index) => (
        <Text key={index}>{`  • ${grant}`}</Text>
      ))}
      <Text> </Text>
      <Text>
        <Text bold>y</Text> trust it (asked again when any of this changes) · <Text bold>n</Text> start without them
      </Text>
    </Box>
  )
}
