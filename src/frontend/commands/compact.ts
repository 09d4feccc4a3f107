import type { BuiltinCommand } from './types.js'

/**
 * `/compact [keep=N] [focus]`: `keep=N` keeps the newest N exchanges verbatim (default 1); the rest of the text is
 * the focus the summary is asked to keep.
 */
export function compactRequest(arg: string): { focus?: string; keep?: number } | { error: string } {
  const match = /^keep=(\S*)\s*/.exec(arg)
  if (!match) return { focus: arg.trim() || undefined }
  const keep = Number(match[1])
  if (!/^\d+$/.test(match[1]) || keep < 1) return { error: `keep=${match[1]} is not a whole number of exchanges; use e.g. /compact keep=3.` }
  return { keep, focus: arg.slice(match[0].length).trim() || undefined }
}

export const compactCommand: BuiltinCommand = {
  name: 'compact',
  argument: { hint: '[keep=N] [focus]' },
  help: 'Summarize all but the newest exchange (or N) to free context',
  surfaces: ['tui', 'acp', 'rpc', 'web', 'print'],
  async run(ctx, arg) {
    const { agent } = ctx
    if (agent.busy) return ctx.reply('A turn is running; /compact works once it has ended (cancel it first).', { level: 'warning' })
    const request = compactRequest(arg)
    if ('error' in request) return ctx.reply(request.error, { level: 'warning' })
    const outcome = await agent.compact(request.focus, { keep: request.keep })
    // Every outcome but `nothing` is logged as `compaction/end`, which a surface that draws events already shows.
    if (outcome.outcome === 'nothing' || !ctx.host.drawsCompaction) ctx.reply(outcome.message)
  },
}
