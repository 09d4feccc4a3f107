import type { BuiltinCommand } from './types.js'

const THEMES = ['auto', 'dark', 'light'] as const

/** `/theme [auto|dark|light]`: the terminal UI's colours for this session; `tui.theme` in settings keeps a choice. */
export const themeCommand: BuiltinCommand = {
  name: 'theme',
  argument: { hint: `[${THEMES.join('|')}]`, choices: () => THEMES, picks: true },
  help: 'Show or switch the colour theme (auto follows the terminal background)',
  surfaces: ['tui'],
  run(ctx, arg) {
    const { theme, setTheme } = ctx.host
    if (!theme || !setTheme) return ctx.reply('This surface draws no colours of its own.', { level: 'warning' })
    const keep = 'to keep it, set "tui": {"theme": …} in settings'
    if (!arg) {
      const now = theme()
      return ctx.reply(`The theme is ${now.name} (setting: ${now.setting}); /theme ${THEMES.join('|')} switches it.`)
    }
    if (!(THEMES as readonly string[]).includes(arg)) return ctx.reply(`The theme must be one of ${THEMES.join(', ')}; try /theme light.`, { level: 'warning' })
    setTheme(arg)
    ctx.host.settingsChanged?.()
    const now = theme()
    ctx.reply(`The theme is now ${now.name}${arg === 'auto' ? ' (auto)' : ''} for new lines of this session; ${keep}.`)
  },
}
