import type { CommandContext } from './types.js'

/**
 * Sends a command's prompt as the user's message (`/init`, `/review`): through the surface when it answers the
 * command with the turn, else as the agent's follow-up (it opens a turn now, or after the running one). The source
 * names the command, so a transcript can show `/init` instead of the prompt. Returns the message id.
 */
export function sendAsUser(ctx: CommandContext, name: string, arg: string, text: string): string {
  const source = { kind: 'user', command: name, builtin: true, ...(arg ? { arguments: arg } : {}) }
  return ctx.host.sendPrompt ? ctx.host.sendPrompt(text, source) : ctx.agent.followUp(text, source)
}
