import type { CommandResult } from '../../agent/extensions.js'
import { parseRewindSlash, rewindPlanLines, scopeRequest, turnListing, turnRow, type RewindScope } from '../../checkpoints/rewind-slash.js'
import { REWIND_COMMAND, UNDO_REWIND_COMMAND, type RewindOutcome, type RewindRequest } from '../../checkpoints/rewind-types.js'
import { checkpointTurns } from '../../checkpoints/turns.js'
import type { BuiltinCommand, CommandContext } from './types.js'

const SCOPES: { value: RewindScope | 'cancel'; label: string }[] = [
  { value: 'both', label: 'Restore code and conversation' },
  { value: 'code', label: 'Restore code only' },
  { value: 'conversation', label: 'Restore conversation only' },
  { value: 'cancel', label: 'Cancel' },
]

/**
 * `/rewind [turn [code|conversation]] | undo` (docs/checkpoints.md, "From each front end"). Where the surface can
 * pick, alone it offers the turns, newest first, then the chosen turn's dry run and what to restore; elsewhere alone
 * it lists the turns and `/rewind <turn>` goes back at once. A rewind that forked the conversation moves the surface
 * to the fork where it can switch sessions, and names the fork where it cannot (an editor opens it from its list).
 * Conflicts are asked through the agent's permission asker, like any other question.
 */
export const rewindCommand: BuiltinCommand = {
  name: 'rewind',
  argument: { hint: '[turn [code|conversation] | undo]' },
  help: "List the turns, or go back to a turn's start: its files, its conversation or both",
  surfaces: ['tui', 'acp'],
  async run(ctx, arg) {
    if (ctx.agent.busy) return ctx.reply('A turn is running; /rewind works once it has ended (cancel it first).', { level: 'warning' })
    const parsed = parseRewindSlash(arg)
    switch (parsed.kind) {
      case 'error':
        return ctx.reply(parsed.message, { level: 'warning' })
      case 'undo':
        return run(ctx, UNDO_REWIND_COMMAND, {})
      case 'turn':
        if (ctx.host.pick) return plan(ctx, parsed.turn, parsed.scope)
        return run(ctx, REWIND_COMMAND, { turn: parsed.turn, ...(parsed.scope ? scopeRequest(parsed.scope) : {}) })
      case 'list': {
        const turns = checkpointTurns(ctx.events())
        if (!turns.length) return ctx.reply('There is no turn to rewind to yet.')
        const pick = ctx.host.pick
        if (!pick) return ctx.reply(`Turns of this session, newest first (/rewind <turn> [code|conversation] goes back to one):\n\n${turnListing(turns)}`)
        const choices = turns
          .slice()
          .reverse()
          .map((t) => ({ value: String(t.turn), ...turnRow(t) }))
        return pick('Rewind to the start of a turn', choices, (value) => void plan(ctx, Number(value)))
      }
    }
  },
}

/** Shows the dry run of going back to `turn`, then asks what to restore (only `scope` and cancel when one was given). */
async function plan(ctx: CommandContext, turn: number, scope?: RewindScope): Promise<void> {
  const pick = ctx.host.pick
  const planned = await attempt(ctx, REWIND_COMMAND, { turn, dryRun: true, ...(scope ? scopeRequest(scope) : {}) })
  if (!planned || !pick) return
  // Anything but a plan (the command missing in this session) has nothing to choose from: its sentence is all.
  if (planned.outcome !== 'planned') return ctx.reply(planned.message, { level: 'warning' })
  const lines = [planned.message, ...rewindPlanLines(planned.data as RewindOutcome | undefined)]
  ctx.reply(lines.join('\n'), { title: `Rewind to turn ${turn}` })
  const choices = SCOPES.filter((s) => !scope || s.value === scope || s.value === 'cancel')
  pick(`Rewind to turn ${turn}: what to restore`, choices, (value) => {
    if (value === 'cancel') return ctx.reply('Rewind cancelled; nothing changed.')
    void run(ctx, REWIND_COMMAND, { turn, ...scopeRequest(value as RewindScope) })
  })
}

/** Runs the command for real; on a fork, continues there when the surface can switch, else names it. */
async function run(ctx: CommandContext, name: string, request: Partial<RewindRequest>): Promise<void> {
  const result = await attempt(ctx, name, request)
  if (!result) return
  const outcome = result.data as RewindOutcome | undefined
  const level = result.outcome === 'cancelled' ? 'warning' : 'info'
  const switchSession = ctx.host.switchSession
  if (switchSession) {
    ctx.reply(result.message, { level })
    if (outcome?.fork) switchSession({ kind: 'switch', resume: outcome.fork.id })
    return
  }
  const lines = [result.message, ...rewindPlanLines(outcome)]
  if (outcome?.fork) lines.push(`To continue there, open session ${outcome.fork.id} from your editor's session list; this session stays as it was.`)
  ctx.reply(lines.join('\n'), { level })
}

/** The command's result, or undefined after saying in one sentence why it could not run (a bad turn, a turn running). */
async function attempt(ctx: CommandContext, name: string, request: Partial<RewindRequest>): Promise<CommandResult | undefined> {
  try {
    return await ctx.agent.runCommand(name, { args: { ...request } })
  } catch (error) {
    ctx.reply(error instanceof Error ? error.message : String(error), { level: 'warning' })
    return undefined
  }
}
