import { Box, Text, useApp, useInput } from 'ink'
import { theme } from './theme.js'

/**
 * Shown instead of the conversation when no DeepSeek key is configured: how to set one, and the demo that needs none.
 * Any key closes it.
 */
export function FirstRun({ credentialsFile }: { credentialsFile: string }) {
  const { exit } = useApp()
  useInput(() => exit())
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={theme().accent} paddingX={1}>
      <Text bold>Welcome to Rein.</Text>
      <Text> </Text>
      <Text>Rein needs a DeepSeek API key (https://platform.deepseek.com/api_keys). Either:</Text>
      <Text>
        {'  '}• export it: <Text color={theme().accent}>export DEEPSEEK_API_KEY=sk-…</Text>
      </Text>
      <Text>
        {'  '}• or store it in <Text color={theme().accent}>{credentialsFile}</Text>, readable only by you:
      </Text>
      <Text color={theme().accent}>
        {'      '}umask 077; echo 'DEEPSEEK_API_KEY=sk-…' {'>'} {credentialsFile}
      </Text>
      <Text> </Text>
      <Text>
        To try Rein without a key, run <Text color={theme().accent}>rein demo</Text>: it talks to a built-in mock model.
      </Text>
      <Text dimColor>Press any key to leave.</Text>
    </Box>
  )
}
