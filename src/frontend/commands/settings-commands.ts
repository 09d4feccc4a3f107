import { PERMISSION_MODES, type PermissionMode } from '../../agent/types.js'
import type { Effort } from '../../llm/adapter.js'
import { grouped } from '../../text/count.js'
import { modelInfo } from '../../llm/catalog.js'
import { reinHome } from '../../store/home.js'
import { modelIdsFor, modelRefusal } from './model-check.js'
import type { BuiltinCommand } from './types.js'

export const EFFORTS: readonly Effort[] = ['off', 'low', 'high', 'max']

const ALL = ['tui', 'acp', 'rpc', 'web', 'print'] as const

/** `/model [id]`: one wording on every surface; a retired id or a typo is refused before anything changes. */
export const modelCommand: BuiltinCommand = {
  name: 'model',
  argument: {
    hint: '[id]',
    picks: ({ cwd }) => modelIdsFor(cwd, reinHome()),
    describe: (id) => modelSummary(id),
    then: 'effort',
  },
  help: 'Show or switch the model',
  surfaces: ALL,
  run(ctx, arg) {
    const { agent } = ctx
    if (!arg) return ctx.reply(`The model is ${agent.config.model}; /model <id> switches it.`)
    const refusal = modelRefusal(arg, { cwd: agent.cwd, home: ctx.home })
    if (refusal) return ctx.reply(refusal, { level: 'warning' })
    agent.setModel({ model: arg })
    ctx.host.settingsChanged?.()
    const window = ctx.host.contextWindow?.(arg)
    ctx.reply(`The model is now ${arg}${window ? ` (context window ${grouped(window)} tokens)` : ''}; it applies from the next request.`)
  },
}

/** A model's window and off-peak prices (USD per 1M tokens), for a picker row: `1,048,565 tokens · $0.15 in, $0.60 out`. */
function modelSummary(id: string): string {
  const info = modelInfo(id)
  const alias = info.aliasOf ? ` · same as ${info.aliasOf}` : ''
  return `${grouped(info.contextWindow)} tokens · $${info.prices.cacheMiss.toFixed(2)} in, $${info.prices.output.toFixed(2)} out per 1M${alias}`
}

export const effortCommand: BuiltinCommand = {
  name: 'effort',
  argument: { hint: `[${EFFORTS.join('|')}]`, choices: () => EFFORTS, picks: true },
  help: 'Show or set how hard the model thinks',
  surfaces: ALL,
  run(ctx, arg) {
    const { agent } = ctx
    if (!arg) return ctx.reply(`Effort is ${agent.config.effort}; /effort ${EFFORTS.join('|')} changes it.`)
    if (!(EFFORTS as readonly string[]).includes(arg)) return ctx.reply(`Effort must be one of ${EFFORTS.join(', ')}; try /effort high.`, { level: 'warning' })
    agent.setModel({ effort: arg as Effort })
    ctx.host.settingsChanged?.()
    ctx.reply(`Effort is now ${arg}.`)
  },
}

export const permissionsCommand: BuiltinCommand = {
  name: 'permissions',
  argument: { hint: '[mode]', choices: () => PERMISSION_MODES },
  help: 'Show the permission mode and rules, or set the mode',
  surfaces: ALL,
  run(ctx, arg) {
    const { agent } = ctx
    if (arg) {
      if (!(PERMISSION_MODES as readonly string[]).includes(arg)) {
        return ctx.reply(`The permission mode must be one of ${PERMISSION_MODES.join(', ')}; try /permissions default.`, { level: 'warning' })
      }
      agent.setPermissionMode(arg as PermissionMode)
      ctx.host.settingsChanged?.()
      return ctx.reply(`The permission mode is now ${arg}.`)
    }
    const mode = `The permission mode is ${agent.permissionMode} (one of ${PERMISSION_MODES.join(', ')}).`
    const rules = ctx.host.permissionRules?.(agent.cwd)
    if (!rules) return ctx.reply(mode)
    const list = (label: string, items: string[]) => `${label}: ${items.length ? items.join(', ') : '(none)'}`
    ctx.reply([mode, list('allow', rules.allow), list('ask', rules.ask), list('deny', rules.deny)].join('\n'), { title: 'Permissions' })
  },
}
