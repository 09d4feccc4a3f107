import { isBuiltinCommand, provideBuiltinNames } from '../../slash/builtins.js'
import { offeredCommands } from '../../prompt-files/commands/listing.js'
import { compactCommand } from './compact.js'
import { doctorCommand } from './doctor.js'
import { initCommand } from './init.js'
import { jobsCommand } from './jobs.js'
import { reviewCommand } from './review.js'
import { contextCommand, costCommand, helpCommand, hooksCommand, sandboxCommand, skillsCommand } from './info-commands.js'
import { rewindCommand } from './rewind.js'
import { exportCommand, forkCommand, newCommand, quitCommand, resumeCommand, subagentsCommand } from './session-commands.js'
import { effortCommand, modelCommand, permissionsCommand } from './settings-commands.js'
import { themeCommand } from './theme.js'
import type { BuiltinCommand, Surface } from './types.js'

/**
 * THE catalog of built-in commands: every surface (terminal UI, ACP, RPC, web, print mode) lists and runs its
 * commands from here, filtered by `surfaces`. A new built-in command is one entry in this list.
 */
/** `/vim`: the prompt editor's vim keys, on or off (src/cli/tui/vim.ts). */
const vimCommand: BuiltinCommand = {
  name: 'vim',
  help: 'Turn vim keys in the prompt editor on or off',
  surfaces: ['tui'],
  run: (ctx) => {
    const on = ctx.host.toggleVim?.()
    if (on === undefined) return ctx.reply('This surface has no prompt editor to switch.', { level: 'warning' })
    ctx.reply(on ? 'Vim keys on: Esc for normal mode (h j k l w b 0 $ x dd i a A o); /vim again turns them off.' : 'Vim keys off.')
  },
}

const CATALOG: BuiltinCommand[] = [
  helpCommand(commandsFor),
  newCommand,
  resumeCommand,
  forkCommand,
  modelCommand,
  effortCommand,
  permissionsCommand,
  themeCommand,
  rewindCommand,
  compactCommand,
  initCommand,
  reviewCommand,
  costCommand,
  contextCommand,
  hooksCommand,
  skillsCommand,
  sandboxCommand,
  doctorCommand,
  jobsCommand,
  subagentsCommand,
  exportCommand,
  vimCommand,
  quitCommand,
]

// A built-in that yields is not a name custom commands lose to: a `review.md` stays a command of its own.
provideBuiltinNames(() => CATALOG.filter((c) => !c.yields).flatMap((c) => [c.name, ...(c.aliases ?? [])]))

/** Whether a custom command offered in `cwd` takes the place of `command` (`yields`). */
function yieldedIn(command: BuiltinCommand, cwd: string): boolean {
  return Boolean(command.yields) && offeredCommands(cwd, isBuiltinCommand).offered.some((c) => c.name === command.name)
}

/**
 * The catalog's commands offered on `surface`, in catalog order; with `cwd`, without the built-ins a custom command
 * of that directory takes the place of (`yields`).
 */
export function commandsFor(surface: Surface, cwd?: string): BuiltinCommand[] {
  return CATALOG.filter((c) => c.surfaces.includes(surface) && (cwd === undefined || !yieldedIn(c, cwd)))
}

/** The command `name` (or an alias, any case) names, if `surface` offers it (in `cwd`, when given). */
export function findCommand(name: string, surface: Surface, cwd?: string): BuiltinCommand | undefined {
  const lower = name.toLowerCase()
  return CATALOG.find((c) => c.surfaces.includes(surface) && (c.name === lower || c.aliases?.includes(lower)) && (cwd === undefined || !yieldedIn(c, cwd)))
}

/**
 * Adds a command to the catalog for an extension of Rein or a test; returns the function that takes it out again. A
 * name already in the catalog is refused, so a built-in can never be replaced by accident.
 */
export function addCommand(command: BuiltinCommand): () => void {
  if (CATALOG.some((c) => c.name === command.name || c.aliases?.includes(command.name))) throw new Error(`There is already a built-in /${command.name}.`)
  CATALOG.push(command)
  return () => {
    const at = CATALOG.indexOf(command)
    if (at >= 0) CATALOG.splice(at, 1)
  }
}

/** `/name rest` → name and argument text; undefined when the line is not a slash command. */
export function parseSlash(line: string): { name: string; arg: string } | undefined {
  const match = /^\/([a-zA-Z][\w-]*)(?:\s+([\s\S]*))?$/.exec(line.trim())
  if (!match) return undefined
  return { name: match[1].toLowerCase(), arg: (match[2] ?? '').trim() }
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const here = row[j]
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1))
      prev = here
    }
  }
  return row[b.length]
}

/** The command on `surface` closest to a mistyped one: a prefix match first, else the nearest within two edits. */
export function suggestCommand(name: string, surface: Surface): string | undefined {
  const offered = commandsFor(surface)
  const prefixed = offered.find((c) => c.name.startsWith(name))
  if (prefixed) return prefixed.name
  let best: { name: string; d: number } | undefined
  for (const c of offered) {
    const d = distance(name, c.name)
    if (d <= 2 && (!best || d < best.d)) best = { name: c.name, d }
  }
  return best?.name
}
