import { skillsReport } from '../../prompt-files/skills/report.js'
import { reinHome } from '../../store/home.js'
import { readSandboxReport, sandboxReportText } from '../sandbox-report.js'
import { customHelp } from './custom.js'
import type { BuiltinCommand, CommandContext, Surface } from './types.js'

const ALL = ['tui', 'acp', 'rpc', 'web', 'print'] as const

/** `/sandbox` where the surface does not say it itself: what `rein sandbox` prints, or the one sentence a bad settings file gives. */
function sandboxText(cwd: string): string {
  const home = reinHome()
  try {
    return sandboxReportText(readSandboxReport({ cwd, home }), home)
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}

/** `/help`: the built-ins this surface offers (from the catalog, read when asked), the custom commands, the surface's own lines. */
export function helpCommand(list: (surface: Surface, cwd: string) => readonly BuiltinCommand[]): BuiltinCommand {
  return {
    name: 'help',
    help: 'List the commands (and keys)',
    surfaces: ALL,
    run(ctx) {
      const commands = list(ctx.surface, ctx.agent.cwd).map((c) => `/${c.name}${c.argument ? ` ${c.argument.hint}` : ''}`.padEnd(32) + c.help)
      const own = ctx.host.helpLines?.() ?? []
      ctx.reply([...commands, ...customHelp(ctx.agent.cwd), ...(own.length ? ['', ...own] : [])].join('\n'), { title: 'Commands and keys' })
    },
  }
}

export const skillsCommand: BuiltinCommand = {
  name: 'skills',
  help: 'List the skills the model can load, and the ones that could not be loaded',
  surfaces: ALL,
  run: (ctx) => ctx.reply(skillsReport(ctx.agent.cwd), { title: 'Skills' }),
}

export const sandboxCommand: BuiltinCommand = {
  name: 'sandbox',
  help: 'Show the sandbox policy and whether bubblewrap works here',
  surfaces: ALL,
  run: (ctx) => ctx.reply(ctx.host.sandboxReport?.(ctx.agent.cwd) ?? sandboxText(ctx.agent.cwd), { title: 'Sandbox' }),
}

/** A report only the surface can draw (it keeps the ledger or the view); offered where the surface gives it. */
function reportCommand(name: 'cost' | 'context' | 'hooks', help: string, title: string): BuiltinCommand {
  return {
    name,
    help,
    surfaces: ['tui'],
    run(ctx: CommandContext) {
      const text = ctx.host.report?.(name)
      if (text === undefined) return ctx.reply(`/${name} needs the terminal UI.`, { level: 'warning' })
      ctx.reply(text, { title })
    },
  }
}

export const costCommand = reportCommand('cost', 'Usage and cost by turn', 'Cost by turn')
export const contextCommand = reportCommand('context', 'What the next request contains, by producer', 'What the next request contains')
export const hooksCommand = reportCommand('hooks', 'Hooks that ran in this session and what they decided', 'Hooks in this session')
