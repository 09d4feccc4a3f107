import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { parseFrontmatter, textField, toolRulesField } from '../skills/frontmatter.js'

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
}

export interface CommandFolder {
  dir: string
  scope: 'user' | 'project'
}

/**
 * Where commands are looked for, first match wins: the user's own folders before the workspace's (a repository cannot
 * take over a name the user relies on), and Rein's folder before Claude Code's at each level.
 */
export function commandFolders(options: { cwd: string; reinHome: string; userHome: string }): CommandFolder[] {
  return [
    { dir: join(options.reinHome, 'commands'), scope: 'user' },
    { dir: join(options.userHome, '.claude', 'commands'), scope: 'user' },
    { dir: join(options.cwd, '.rein', 'commands'), scope: 'project' },
    { dir: join(options.cwd, '.claude', 'commands'), scope: 'project' },
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

/** Every command in the folders, in precedence order; a file that cannot be read or parsed is one problem sentence. */
export function loadCommands(folders: readonly CommandFolder[]): CommandCatalog {
  const commands: CustomCommand[] = []
  const problems: string[] = []
  const byName = new Map<string, CustomCommand>()
  for (const folder of folders) {
    for (const file of markdownFiles(folder.dir, 0)) {
      const loaded = loadCommand(file, folder)
      if ('error' in loaded) {
        problems.push(loaded.error)
        continue
      }
      const qualified = loaded.namespace ? `${loaded.namespace}:${loaded.name}` : undefined
      if (byName.has(loaded.name) && (!qualified || byName.has(qualified))) continue
      commands.push(loaded)
      if (!byName.has(loaded.name)) byName.set(loaded.name, loaded)
      if (qualified && !byName.has(qualified)) byName.set(qualified, loaded)
    }
  }
  return { commands, problems, find: (name) => byName.get(name) }
}

/** The name a listing shows for a command: the short name when it answers to it, else the namespaced one. */
export function shownName(catalog: CommandCatalog, command: CustomCommand): string {
  return catalog.find(command.name) === command || !command.namespace ? command.name : `${command.namespace}:${command.name}`
}

function markdownFiles(dir: string, depth: number): string[] {
  let entries
  try {
    entries = readdirSync(dir, { withFileTypes: true })
  } catch {
    // A folder that does not exist (the usual case) or cannot be listed holds no commands.
    return []
  }
  const out: string[] = []
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (entry.name.startsWith('.')) continue
    const path = join(dir, entry.name)
    const isDir = entry.isDirectory() || (entry.isSymbolicLink() && isDirectory(path))
    if (isDir && depth < MAX_DEPTH) out.push(...markdownFiles(path, depth + 1))
    else if (!isDir && entry.name.endsWith('.md')) out.push(path)
  }
  return out
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    // A dangling symlink is neither a folder nor a command.
    return false
  }
}

function loadCommand(file: string, folder: CommandFolder): CustomCommand | { error: string } {
  const rel = relative(folder.dir, file)
  const parts = rel.split(sep)
  const name = parts.pop()!.slice(0, -'.md'.length)
  const shown = folder.scope === 'user' ? file : relative(join(folder.dir, '..', '..'), file)
  if (!NAME.test(name) || !parts.every((p) => NAME.test(p))) {
    return { error: `The command file ${shown} is skipped: command names use letters, digits, dot, dash and underscore.` }
  }
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    return { error: `The command file ${shown} could not be read (${(error as NodeJS.ErrnoException).code ?? String(error)}).` }
  }
  const parsed = parseFrontmatter(text, `The command file ${shown}`)
  if ('error' in parsed) return parsed
  const description = textField(parsed, 'description', `The command file ${shown}`)
  const hint = textField(parsed, 'argument-hint', `The command file ${shown}`)
  const model = textField(parsed, 'model', `The command file ${shown}`)
  const tools = toolRulesField(parsed.data, 'allowed-tools', `The command file ${shown}`)
  for (const field of [description, hint, model, tools]) if (field && typeof field === 'object' && 'error' in field) return field
  return {
    name,
    ...(parts.length ? { namespace: parts.join(':') } : {}),
    scope: folder.scope,
    file,
    description: (description as string | undefined) ?? firstLine(parsed.body),
    ...(hint ? { argumentHint: hint as string } : {}),
    allowedTools: tools as string[],
    ...(model ? { model: model as string } : {}),
    body: parsed.body.replace(/^\r?\n/, ''),
  }
}

/** The body's first non-empty line, without Markdown heading marks, at most 80 characters. */
function firstLine(body: string): string {
  const line = body.split('\n').map((l) => l.replace(/^#+\s*/, '').trim()).find(Boolean) ?? ''
  return line.length > 80 ? `${line.slice(0, 79)}…` : line
}
