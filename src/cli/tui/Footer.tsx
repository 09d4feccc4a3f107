import { Box, Text, useStdout } from 'ink'
import stringWidth from 'string-width'
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

/** One part of the status line; `drop` orders what goes first when the line is too wide (higher goes sooner). */
interface Part {
  text: string
  /** Dim text right after `text`, one space apart (the effort after the model, the subagents' cost after the cost). */
  after?: string
  colour?: string
  dim?: boolean
  drop: number
}

const GAP = 2

/**
 * The parts that fit in `columns` on one line, in their order: the status line never wraps (a wrapped footer pushes
 * the editor up and leaves a stale line on the next redraw). The key help goes first, then the cache share, then
 * the queue count; the model and effort, mode, context and cost (with the subagents' share) stay.
 */
export function fitParts(parts: readonly Part[], columns: number): Part[] {
  const kept = [...parts]
  const width = () => kept.reduce((sum, p) => sum + stringWidth(p.after ? `${p.text} ${p.after}` : p.text), 0) + GAP * Math.max(0, kept.length - 1)
  while (width() > columns) {
    const worst = kept.reduce((at, p, i) => (p.drop > kept[at].drop ? i : at), 0)
    if (kept[worst].drop === 0) break
    kept.splice(worst, 1)
  }
  return kept
}

/** One status line: model and effort, permission mode, context used, cache-hit share, cost, queued messages. */
export function Footer({ model, effort, mode, figures, queued, busy, hint }: FooterProps) {
  const columns = useStdout().stdout.columns || 80
  const t = theme()
  const percent = Math.round(figures.contextShare * 100)
  const parts: Part[] = [
    { text: model, after: `· ${effort}`, drop: 0 },
    { text: mode, colour: modeColour(mode), drop: 0 },
    { text: `ctx ${formatTokens(figures.contextTokens)} (${percent}%)`, colour: percent >= 80 ? t.error : percent >= 60 ? t.warn : undefined, drop: 0 },
    { text: `cache ${figures.cacheHitShare === undefined ? '–' : `${Math.round(figures.cacheHitShare * 100)}%`}`, dim: true, drop: 4 },
    { text: formatCost(figures.totalCost), ...(figures.subagentCost ? { after: `+ ${formatCost(figures.subagentCost)} subagents` } : {}), drop: 0 },
    ...(queued ? [{ text: `${queued} queued`, colour: t.warn, drop: 1 }] : []),
    { text: hint ?? (busy ? 'Esc cancel · Enter steers · Tab queues' : '/help'), dim: !hint, drop: hint ? 1 : 5 },
  ]
  const shown = fitParts(parts, Math.max(1, columns - 1))
  return (
    <Box flexDirection="column">
      {mode === 'bypass' ? (
        <Text color={t.error} bold wrap="truncate-end">
          ⚠ Bypass mode: every tool call runs without asking, edits and commands included. Shift+Tab leaves it.
        </Text>
      ) : null}
      <Box flexDirection="row" columnGap={GAP}>
        {shown.map((p, i) => (
          <Text key={i} color={p.colour} dimColor={p.dim} wrap="truncate-end">
            {p.text}
            {p.after ? <Text dimColor> {p.after}</Text> : null}
          </Text>
        ))}
      </Box>
    </Box>
  )
}
