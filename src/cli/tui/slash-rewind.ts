import type { CommandResult } from '../../agent/extensions.js'
import { parseRewindSlash, rewindPlanLines, scopeRequest, turnRow, type RewindScope } from '../../checkpoints/rewind-slash.js'
import { REWIND_COMMAND, UNDO_REWIND_COMMAND, type RewindOutcome, type RewindRequest } from '../../checkpoints/rewind-types.js'
import { checkpointTurns } from '../../checkpoints/turns.js'
import type { SlashContext } from './slash-run.js'

const SCOPES: { value: RewindScope | 'cancel'; label: string }[] = [
  { value: 'both', label: 'Restore code and conversation' },
  { value: 'code', label: 'Restore code only' },
  { value: 'conversation', label: 'Restore conversation only' },
  { value: 'cancel', label: 'Cancel' },
]

/**
 * `/rewind [turn [code|conversation]] | undo` (docs/checkpoints.md, "From each front end"): a picker of turns, newest
 * first; the chosen turn's dry run (what will be restored, the conflicts); then what to restore. A rewind that forked
 * the conversation switches the screen to the fork; the scrollback above stays.
 */
export async function runRewindSlash(ctx: SlashContext, arg: string): Promise<void> {
  const { agent } = ctx
  if (agent.busy) return ctx.say('A turn is running; /rewind works once it has ended (Esc cancels it).')
  const parsed = parseRewindSlash(arg)
  switch (parsed.kind) {
    case 'error':
      return ctx.say(parsed.message, 'warning')
    case 'undo':
      return run(ctx, UNDO_REWIND_COMMAND, {})
    case 'turn':
      return plan(ctx, parsed.turn, parsed.scope)
    case 'list': {
      const turns = checkpointTurns(ctx.events())
      if (!turns.length) return ctx.say('There is no turn to rewind to yet.')
      const choices = turns
        .slice()
        .reverse()
        .map((t) => ({ value: String(t.turn), ...turnRow(t) }))
      return ctx.pick('Rewind to the start of a turn', choices, (value) => void plan(ctx, Number(value)))
    }
  }
}

/** Shows the dry run of going back to `turn`, then asks what to restore (only `scope` and cancel when one was given). */
async function plan(ctx: SlashContext, turn: number, scope?: RewindScope): Promise<void> {
  const planned = await attempt(ctx, REWIND_COMMAND, { turn, dryRun: true, ...(scope ? scopeRequest(scope) : {}) })
  if (!planned) return
  // Anything but a plan (the command missing in this session) has nothing to choose from: its sentence is all.
  if (planned.outcome !== 'planned') return ctx.say(planned.message, 'warning')
  const lines = [planned.message, ...rewindPlanLines(planned.data as RewindOutcome | undefined)]
  ctx.show(`Rewind to turn ${turn}`, lines.join('\n'))
  const choices = SCOPES.filter((s) => !scope || s.value === scope || s.value === 'cancel')
  ctx.pick(`Rewind to turn ${turn}: what to restore`, choices, (value) => {
    if (value === 'cancel') return ctx.say('Rewind cancelled; nothing changed.')
    void run(ctx, REWIND_COMMAND, { turn, ...scopeRequest(value as RewindScope) })
  })
}

/** Runs the command for real; on a fork, continues there. */
async function run(ctx: SlashContext, name: string, request: Partial<RewindRequest>): Promise<void> {
  const result = await attempt(ctx, name, request)
  if (!result) return
  ctx.say(result.message, result.outcome === 'cancelled' ? 'warning' : 'info')
  const fork = (result.data as RewindOutcome | undefined)?.fork
  if (fork) ctx.exit({ kind: 'switch', resume: fork.id })
}

/** The command's result, or undefined after saying in one sentence why it could not run (a bad turn, a turn running). */
async function attempt(ctx: SlashContext, name: string, request: Partial<RewindRequest>): Promise<CommandResult | undefined> {
  try {
    return await ctx.agent.runCommand(name, { args: { ...request } })
  } catch (error) {
    ctx.say(error instanceof Error ? error.message : String(error), 'warning')
    return undefined
  }
}
