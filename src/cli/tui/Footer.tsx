import { Box, Text } from 'ink'
import type { PermissionMode } from '../../agent/types.js'
import type { Effort } from '../../llm/adapter.js'
import { formatCost, formatTokens, type UsageFigures } from './usage-ledger.js'
import { theme } from './theme.js'

export interface FooterProps {
  model: string
  effort: Effort
  mode: PermissionMode
  figures: UsageFigures
  queued: number
  busy: boolean
  /** A transient hint (`Press Ctrl+C again to exit`), shown in place of the key help. */
  hint?: string
}

function modeColour(mode: PermissionMode): string | undefined {
  const t = theme()
  return { default: undefined, 'accept-edits': t.ok, plan: t.plan, bypass: t.error }[mode]
}

/** One status line: model and effort, permission mode, context used, cache-hit share, cost, queued messages. */
export function Footer({ model, effort, mode, figures, queued, busy, hint }: FooterProps) {
  const percent = Math.round(figures.contextShare * 100)
  return (
    <Box flexDirection="row" flexWrap="wrap" columnGap={2}>
      <Text>
        {model} <Text dimColor>· {effort}</Text>
      </Text>
      <Text color={modeColour(mode)}>{mode}</Text>
      <Text color={percent >= 80 ? theme().error : percent >= 60 ? theme().warn : undefined}>
        ctx {formatTokens(figures.contextTokens)} ({percent}%)
      </Text>
      <Text dimColor>cache {figures.cacheHitShare === undefined ? '–' : `${Math.round(figures.cacheHitShare * 100)}%`}</Text>
      <Text>
        {formatCost(figures.totalCost)}
        {figures.subagentCost ? <Text dimColor> + {formatCost(figures.subagentCost)} subagents</Text> : null}
      </Text>
      {queued ? <Text color={theme().warn}>{queued} queued</Text> : null}
      <Text dimColor>{hint ?? (busy ? 'Esc cancel · Enter steers · Tab queues' : '/help')}</Text>
    </Box>
  )
}
