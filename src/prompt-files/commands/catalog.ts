import { readdirSync, statSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { gateDirectory, readGated, skippedNotice, type GateFolder, type Refusal } from '../../fs/read-gate.js'
import { ignoredFields, ignoredFieldsNotice, parseFrontmatter, textField, toolRulesField } from '../frontmatter.js'
import { withVariables, type PromptRoot } from '../roots.js'

/**
 * Custom slash commands in Claude Code's format: Markdown files whose name is the command, with optional frontmatter
 * (`description`, `argument-hint`, `allowed-tools`, `model`) and a body that becomes the user's prompt.
 */
export interface CustomCommand {
  /** What the user types after `/`: the file name without `.md`. */
  name: string
  /** The subfolder path joined with `:` (`frontend` for `frontend/component.md`); the command also answers to `frontend:component`. */
  namespace?: string
  scope: 'user' | 'project'
  file: string
  /** The frontmatter's, else the body's first line. */
  description: string
  argumentHint?: string
  /** Tool rules the command pre-approves while its prompt runs (a trusted workspace, or a user-level command). */
  allowedTools: string[]
  model?: string
  body: string
  /** The plugin (a source root's namespace) it comes from; listings show it as `plugin:name`. */
  plugin?: string
}

export interface CommandFolder {
  dir: string
  scope: 'user' | 'project'
  /**
   * Where links stop being trusted (the read gate's `base`): the workspace root for a project folder, so a linked
   * `.claude/commands` or a command file linked out of it is not read; the folder itself for the user's own.
   */
  base: string
  /** A source root's namespace (a plugin's name): every command here is also `<namespace>:name`. */
  namespace?: string
  /** `${NAME}` references replaced in the commands' bodies and `allowed-tools`. */
  variables?: Readonly<Record<string, string>>
}

/**
 * Where commands are looked for, first match wins: the user's own folders before the workspace's (a repository cannot
 * take over a name the user relies on), and Rein's folder before Claude Code's at each level.
 */
export function commandFolders(options: { cwd: string; reinHome: string; userHome: string; roots?: readonly PromptRoot[] }): CommandFolder[] {
  const user = (dir: string): CommandFolder => ({ dir, scope: 'user', base: dir })
  const project = (dir: string): CommandFolder => ({ dir, scope: 'project', base: options.cwd })
  const rooted = (options.roots ?? []).flatMap((root) =>
    root.commands.map((dir): CommandFolder => ({ dir, scope: 'user', base: root.base, namespace: root.namespace, variables: root.variables })),
  )
  return [
    user(join(options.reinHome, 'commands')),
    user(join(options.userHome, '.claude', 'commands')),
    project(join(options.cwd, '.rein', 'commands')),
    project(join(options.cwd, '.claude', 'commands')),
    ...rooted,
  ]
}

export interface CommandCatalog {
  commands: CustomCommand[]
  /** One sentence per file that could not be loaded. */
  problems: string[]
  /** A command by the name typed (`component` or `frontend:component`). */
  find(name: string): CustomCommand | undefined
}

/** Folders deeper than this below a commands folder are not searched (and a symlink loop ends here). */
const MAX_DEPTH = 6
const NAME = /^[A-Za-z0-9][\w.-]*$/
/** The frontmatter fields Rein reads from a command file; any other is ignored (see `ignoredFieldsNotice`). */
export const COMMAND_FIELDS = ['description', 'argument-hint', 'allowed-tools', 'model'] as const

/**
 * Every command in the folders, in precedence order. A source root's command answers to `<namespace>:name`, and to
 * its bare name when no earlier folder's command takes it and no other root has a command of that name (as Claude
 * Code resolves plugin commands). Each file and subfolder passes the read gate
 * (`src/fs/read-gate.ts`) with `refuses`, the read guard; a file the gate refuses, or that cannot be parsed, is one
 * problem sentence and no command.
 */
export function loadCommands(folders: readonly CommandFolder[], refuses: Refusal): CommandCatalog {
  const commands: CustomCommand[] = []
  const problems: string[] = []
  const byName = new Map<string, CustomCommand>()
  const ignored = new Map<string, number>()
  const count = (fields: string[]) => fields.forEach((f) => ignored.set(f, (ignored.get(f) ?? 0) + 1))
  const rooted: CustomCommand[] = []
  for (const folder of folders) {
    const gate: GateFolder = { dir: folder.dir, base: folder.base }
    for (const file of markdownFiles(folder.dir, 0, gate, (path, reason) => problems.push(skippedNotice('commands folder', shownPath(path, folder), reason)))) {
      const loaded = loadCommand(file, folder, refuses, count)
      if (!loaded) continue
      if ('error' in loaded) {
        problems.push(loaded.error)
        continue
      }
      const qualified = loaded.namespace ? `${loaded.namespace}:${loaded.name}` : undefined
      if (byName.has(loaded.name) && (!qualified || byName.has(qualified))) continue
      commands.push(loaded)
      if (loaded.plugin) rooted.push(loaded)
      else if (!byName.has(loaded.name)) byName.set(loaded.name, loaded)
      if (qualified && !byName.has(qualified)) byName.set(qualified, loaded)
    }
  }
  for (const command of rooted) {
    if (!byName.has(command.name) && rooted.filter((c) => c.name === command.name).length === 1) byName.set(command.name, command)
  }
  const notice = ignoredFieldsNotice('command', ignored)
  return { commands, problems: notice ? [...problems, notice] : problems, find: (name) => byName.get(name) }
}

/** The name a listing shows for a command: the short name when it answers to it, else the namespaced one. */
export function shownName(catalog: CommandCatalog, command: CustomCommand): string {
  return (catalog.find(command.name) === command && !command.plugin) || !command.namespace ? command.name : `${command.namespace}:${command.name}`
}

/** The `.md` files below `dir`, sorted; a subfolder (or the folder itself) that leaves `gate` is told to `skip` and not walked. */
function markdownFiles(dir: string, depth: number, gate: GateFolder, skip: (path: string, reason: string) => void): string[] {
  const folder = gateDirectory(dir, gate)
  if (folder.kind === 'absent') return []
  if (folder.kind === 'skipped') {
    skip(dir, folder.reason)
    return []
  }
  let entries
  try {
    entries = readdirSync(dir, { withFileTypes: true })
  } catch {
    // A folder that cannot be listed holds no commands we can know of.
    return []
  }
  const out: string[] = []
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (entry.name.startsWith('.')) continue
    const path = join(dir, entry.name)
    const isDir = entry.isDirectory() || (entry.isSymbolicLink() && isDirectory(path))
    if (isDir && depth < MAX_DEPTH) out.push(...markdownFiles(path, depth + 1, gate, skip))
    else if (!isDir && entry.name.endsWith('.md')) out.push(path)
  }
  return out
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    // A dangling symlink is no folder; named `.md`, the gate says what it is.
    return false
  }
}

/** How a problem names a path: absolute for the user's folders, from the workspace for a project's. */
function shownPath(path: string, folder: CommandFolder): string {
  return folder.scope === 'user' ? path : relative(join(folder.dir, '..', '..'), path) || path
}

function loadCommand(file: string, folder: CommandFolder, refuses: Refusal, ignored: (fields: string[]) => void): CustomCommand | { error: string } | undefined {
  const rel = relative(folder.dir, file)
  const parts = [...(folder.namespace ? [folder.namespace] : []), ...rel.split(sep)]
  const name = parts.pop()!.slice(0, -'.md'.length)
  const shown = shownPath(file, folder)
  if (!NAME.test(name) || !parts.every((p) => NAME.test(p))) {
    return { error: `The command file ${shown} is skipped: command names use letters, digits, dot, dash and underscore.` }
  }
  const read = readGated(file, { folder: { dir: folder.dir, base: folder.base }, refuses })
  // Gone since the folder was listed: no command.
  if (read.kind === 'absent') return undefined
  if (read.kind === 'skipped') return { error: skippedNotice('command file', shown, read.reason) }
  const text = read.bytes.toString('utf8')
  const parsed = parseFrontmatter(text, `The command file ${shown}`)
  if ('error' in parsed) return parsed
  const description = textField(parsed, 'description', `The command file ${shown}`)
  const hint = textField(parsed, 'argument-hint', `The command file ${shown}`)
  const model = textField(parsed, 'model', `The command file ${shown}`)
  const tools = toolRulesField(parsed.data, 'allowed-tools', `The command file ${shown}`)
  const vars = folder.variables
  for (const field of [description, hint, model, tools]) if (field && typeof field === 'object' && 'error' in field) return field
  ignored(ignoredFields(parsed, COMMAND_FIELDS))
  return {
    name,
    ...(parts.length ? { namespace: parts.join(':') } : {}),
    scope: folder.scope,
    file,
    description: (description as string | undefined) ?? firstLine(parsed.body),
    ...(hint ? { argumentHint: hint as string } : {}),
    allowedTools: (tools as string[]).map((rule) => withVariables(rule, vars)),
    ...(model ? { model: model as string } : {}),
    body: withVariables(parsed.body.replace(/^\r?\n/, ''), vars),
    ...(folder.namespace ? { plugin: folder.namespace } : {}),
  }
}

/** The body's first non-empty line, without Markdown heading marks, at most 80 characters. */
function firstLine(body: string): string {
  const line = body.split('\n').map((l) => l.replace(/^#+\s*/, '').trim()).find(Boolean) ?? ''
  return line.length > 80 ? `${line.slice(0, 79)}…` : line
}
