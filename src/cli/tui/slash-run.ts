import type { AgentApi } from '../../agent/types.js'
import { findCommand } from '../../frontend/commands/catalog.js'
import { runBuiltin } from '../../frontend/commands/run.js'
import type { BuiltinCommand, CommandContext, CommandHost } from '../../frontend/commands/types.js'
import type { SessionEvent } from '../../session/events.js'
import { reinHome } from '../../store/home.js'
import type { PickerChoice } from './Picker.js'
import type { TuiExit, TuiServices } from './services.js'
import { contextReport, costReport, exportMarkdown, hooksReport } from './session-reports.js'
import { KEY_HELP } from './slash-commands.js'
import { applyThemeSetting } from './terminal-reports.js'
import { theme, themeSetting, THEME_SETTINGS, type ThemeSetting } from './theme.js'
import type { UsageLedger } from './usage-ledger.js'

/** What a slash command may do to the UI around it. */
export interface SlashContext {
  agent: AgentApi
  ledger: UsageLedger
  services: TuiServices
  events(): readonly SessionEvent[]
  sessionId(): string
  title(): string | undefined
  say(text: string, level?: 'info' | 'warning' | 'error'): void
  show(title: string, text: string): void
  pick(title: string, choices: PickerChoice[], onPick: (value: string) => void): void
  exit(action: TuiExit): void
  /** The agent's settings changed (model, effort, mode): re-read them for the footer. */
  refresh(): void
  /** `/vim`: the editor's vim keys on or off; returns whether they are on now. */
  toggleVim?(): boolean
}

/** What the terminal UI gives a catalog command: pickers, session switches, its keys, its ledger and views. */
function tuiHost(ctx: SlashContext): CommandHost {
  const { services } = ctx
  const { sandboxReport, transcript } = services
  return {
    pick: (title, choices, onPick) => ctx.pick(title, choices, onPick),
    switchSession: (to) => ctx.exit(to),
    helpLines: () => KEY_HELP.map(([k, what]) => k.padEnd(32) + what),
    drawsCompaction: true,
    settingsChanged: () => ctx.refresh(),
    listSessions: (cwd) => services.listSessions(cwd),
    permissionRules: (cwd) => services.permissionRules(cwd),
    ...(sandboxReport ? { sandboxReport: (cwd: string) => sandboxReport.call(services, cwd) } : {}),
    ...(transcript ? { transcript: (id: string) => transcript.call(services, id) } : {}),
    contextWindow: (model) => services.facts(model).contextWindow,
    theme: () => ({ name: theme().name, setting: themeSetting() }),
    setTheme: (value) => {
      if ((THEME_SETTINGS as readonly string[]).includes(value)) applyThemeSetting(value as ThemeSetting, process.env)
    },
    ...(ctx.toggleVim ? { toggleVim: ctx.toggleVim } : {}),
    report: (kind) => {
      if (kind === 'cost') return costReport(ctx.ledger.byTurn(), ctx.ledger.subagents(), ctx.ledger.sideRequests())
      if (kind === 'context') return contextReport(ctx.events())
      if (kind === 'hooks') return hooksReport(ctx.events())
      return exportMarkdown(ctx.events(), ctx.title())
    },
  }
}

/** The catalog's context for the terminal UI: a titled reply opens a view, any other is a notice line. */
export function tuiCommandContext(ctx: SlashContext): CommandContext {
  return {
    surface: 'tui',
    agent: ctx.agent,
    events: () => ctx.events(),
    reply: (text, options) => (options?.title ? ctx.show(options.title, text) : ctx.say(text, options?.level)),
    host: tuiHost(ctx),
    home: reinHome(),
  }
}

/**
 * Runs `/name arg` from the command catalog. Unknown names get a suggestion. A command whose argument `picks`, run
 * with none, opens a picker of its choices instead (the terminal UI's way to show them); picking runs it with the
 * choice, as typing `/name choice` would, then opens the picker of the command the argument names `then`.
 */
export async function runSlash(ctx: SlashContext, name: string, arg: string): Promise<void> {
  const command = findCommand(name, 'tui')
  if (!arg && command && pickArgument(ctx, command)) return
  await runBuiltin(tuiCommandContext(ctx), name, arg)
}

/** Opens the picker of `command`'s argument choices; false when it has none to offer. */
function pickArgument(ctx: SlashContext, command: BuiltinCommand): boolean {
  const argument = command.argument
  const cwd = ctx.agent.cwd
  const picks = argument?.picks === true ? argument.choices : argument?.picks
  const values = picks ? picks({ cwd }) : []
  if (!argument || !values.length) return false
  const current = new Set<string>([ctx.agent.config.model, ctx.agent.config.effort, ctx.agent.permissionMode, themeSetting()])
  const choices = values.map((value) => {
    const detail = [argument.describe?.(value, { cwd }), current.has(value) ? 'current' : undefined].filter(Boolean).join(' · ')
    return { value, label: value, ...(detail ? { detail } : {}) }
  })
  ctx.pick(`/${command.name} · ${command.help}`, choices, (value) => {
    void runBuiltin(tuiCommandContext(ctx), command.name, value).then(() => {
      const next = argument.then ? findCommand(argument.then, 'tui') : undefined
      if (next) pickArgument(ctx, next)
    })
  })
  return true
}
