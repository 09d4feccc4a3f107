import { commandsFor, findCommand, suggestCommand } from './catalog.js'
import { SURFACES } from './types.js'
import type { CommandContext, ReplyOptions, Surface } from './types.js'

/** A built-in command as a listing shows it (RPC's `get_commands`, the web's `GET /api/commands`). */
export interface ListedCommand {
  name: string
  aliases: string[]
  hint?: string
  choices?: string[]
  help: string
}

/** The catalog's commands for `surface`, as plain data. */
export function listCommands(surface: Surface, cwd: string): ListedCommand[] {
  return commandsFor(surface, cwd).map((c) => ({
    name: c.name,
    aliases: [...(c.aliases ?? [])],
    ...(c.argument ? { hint: c.argument.hint } : {}),
    ...(c.argument?.choices ? { choices: [...c.argument.choices({ cwd })] } : {}),
    help: c.help,
  }))
}

const SURFACE_NAMES: Record<Surface, string> = { tui: 'the terminal UI', acp: 'ACP editors', rpc: 'rein rpc', web: 'rein web', print: 'rein -p' }

/** The sentence for a name the surface does not offer, with the nearest one it does. */
export function unknownCommand(name: string, surface: Surface): string {
  const shown = name.slice(0, 40)
  const elsewhere = SURFACES.filter((s) => findCommand(name, s))
  if (elsewhere.length) return `/${shown} is not offered here; it works in ${elsewhere.map((s) => SURFACE_NAMES[s]).join(', ')}.`
  const suggestion = suggestCommand(name.toLowerCase(), surface)
  return suggestion ? `There is no /${shown}; did you mean /${suggestion}?` : `There is no /${shown}; /help lists the commands.`
}

/**
 * Runs `/name arg` from the catalog on `ctx.surface`. A name the surface does not offer gets one sentence with a
 * suggestion; a handler that throws replies with its error's message. Returns whether a command ran.
 */
export async function runBuiltin(ctx: CommandContext, name: string, arg: string): Promise<boolean> {
  const command = findCommand(name, ctx.surface)
  if (!command) {
    ctx.reply(unknownCommand(name, ctx.surface), { level: 'warning' })
    return false
  }
  try {
    await command.run(ctx, arg)
  } catch (error) {
    ctx.reply(error instanceof Error ? error.message : String(error), { level: 'error' })
  }
  return true
}

/** One reply a command gave, for surfaces that answer a request with text (ACP, RPC, the web, print mode). */
export interface CommandReply extends ReplyOptions {
  text: string
}

/** Runs a command and collects every reply it gives before its promise settles. */
export async function runCollecting(ctx: Omit<CommandContext, 'reply'>, name: string, arg: string): Promise<{ ran: boolean; replies: CommandReply[] }> {
  const replies: CommandReply[] = []
  const ran = await runBuiltin({ ...ctx, reply: (text, options) => replies.push({ text, ...options }) }, name, arg)
  return { ran, replies }
}
