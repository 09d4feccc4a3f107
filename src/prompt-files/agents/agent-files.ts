import { readdirSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { loadingRefusal } from '../../config/read-guard.js'
import { gateDirectory, readGated, skippedNotice, type GateFolder, type Refusal } from '../../fs/read-gate.js'
import { claudeAliasOf } from '../../llm/catalog.js'
import { builtinTools } from '../../tools/registry.js'
import { TASK_TOOL } from '../../tools/task-facts.js'
import type { AgentType } from '../../subagents/agent-types.js'
import { ignoredFields, ignoredFieldsNotice, parseFrontmatter, textField } from '../frontmatter.js'
import type { PromptRoot } from '../roots.js'

/**
 * Custom agents from Markdown files in Claude Code's format: YAML frontmatter with `name`, `description`, `tools`
 * (comma-separated or a list; Claude Code's names or Rein's) and `model`, and the body as the agent's instructions.
 * Where the same name is defined twice, the first directory wins: the project's `.rein/agents`, its `.claude/agents`,
 * then `$REIN_HOME/agents` and `~/.claude/agents`, then the source roots' (a plugin's `agents/`). Every file passes the read gate (`src/fs/read-gate.ts`): a project's
 * must stay in its folder below the workspace root, the user's in theirs, and none may be one the read guard
 * (`refuses`; by default the one the settings define) refuses. A file the gate refuses or that cannot be read as an
 * agent is reported in one sentence and the others load.
 */
export function loadAgentFiles(options: { cwd: string; home: string; userHome: string; refuses?: Refusal; roots?: readonly PromptRoot[] }): { agents: AgentType[]; problems: string[] } {
  const refuses = options.refuses ?? loadingRefusal(undefined, { cwd: options.cwd, reinHome: options.home, userHome: options.userHome })
  const project = (dir: string): GateFolder => ({ dir, base: options.cwd })
  const user = (dir: string): GateFolder => ({ dir, base: dir })
  const folders = [
    project(join(options.cwd, '.rein', 'agents')),
    project(join(options.cwd, '.claude', 'agents')),
    user(join(options.home, 'agents')),
    user(join(options.userHome, '.claude', 'agents')),
    ...(options.roots ?? []).flatMap((root) => root.agents.map((dir): GateFolder => ({ dir, base: root.base }))),
  ]
  const agents = new Map<string, AgentType>()
  const problems: string[] = []
  const seen = new Set<string>()
  const ignored = new Map<string, number>()
  for (const folder of folders) {
    if (seen.has(folder.dir)) continue
    seen.add(folder.dir)
    const listed = gateDirectory(folder.dir, folder)
    if (listed.kind === 'skipped') problems.push(`${skippedNotice('agents folder', folder.dir, listed.reason).replace(/\.$/, '')}; its agents were not loaded.`)
    if (listed.kind !== 'ok') continue
    for (const file of markdownFiles(folder.dir)) {
      const read = readGated(file, { folder, refuses })
      // Gone since the folder was listed: no agent.
      if (read.kind === 'absent') continue
      if (read.kind === 'skipped') {
        problems.push(`${skippedNotice('agent file', file, read.reason).replace(/\.$/, '')}; it was not loaded.`)
        continue
      }
      const parsed = parseAgentFile(read.bytes.toString('utf8'), file, (fields) => fields.forEach((f) => ignored.set(f, (ignored.get(f) ?? 0) + 1)))
      if (typeof parsed === 'string') problems.push(parsed)
      else if (!agents.has(parsed.name)) agents.set(parsed.name, parsed)
      // Two files of one folder naming the same agent is a mistake to point out; a folder earlier in the order
      // replacing a later one's agent is the precedence above.
      else if (dirname(agents.get(parsed.name)!.source) === dirname(file)) {
        problems.push(`The agent file ${file} is not used: ${agents.get(parsed.name)!.source} already defines the agent ${parsed.name}.`)
      }
    }
  }
  const notice = ignoredFieldsNotice('agent', ignored)
  return { agents: [...agents.values()], problems: notice ? [...problems, notice] : problems }
}

/** Every entry named `*.md` that is not a folder: files, and links, pipes and the like for the gate to refuse. */
function markdownFiles(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => !e.isDirectory() && e.name.endsWith('.md'))
      .map((e) => join(dir, e.name))
      .sort()
  } catch {
    // Not readable: it defines no agents we can know of.
    return []
  }
}

/** An agent's id: what `subagent_type` names. Dots are allowed (`foo.bar`), as published agents use them. */
const NAME = /^[A-Za-z0-9][\w.-]{0,63}$/
/** The frontmatter fields Rein reads from an agent file; any other is ignored (see `ignoredFieldsNotice`). */
export const AGENT_FIELDS = ['name', 'description', 'tools', 'model'] as const
/** Claude Code's tool names (as agent files list them) to Rein's, from each tool's own facts; `Task` is the task tool. */
let reinNames: Map<string, string> | undefined
const reinNameOf = (peer: string): string | undefined =>
  (reinNames ??= new Map([
    ...[...builtinTools(), TASK_TOOL].flatMap((t) => (t.peerNames ? [[t.peerNames.claudeCode.toLowerCase(), t.name] as const] : [])),
  ])).get(peer)
/** Claude Code's model aliases (and any `claude*` id): Rein has no such models, so the child runs on the parent's. */
const INHERIT = new Set(['inherit', 'sonnet', 'opus', 'haiku'])

/**
 * One agent file, or the sentence that says why it is not one. The frontmatter is YAML, read leniently as published
 * files are written (`parseFrontmatter`). A `name` that is no id (`Code Reviewer`) is kept as the display name, and the
 * id is the file's name; `ignored` receives the fields Rein does not use.
 */
export function parseAgentFile(text: string, file: string, ignored?: (fields: string[]) => void): AgentType | string {
  const matter = parseFrontmatter(text, `The agent file ${file}`)
  if ('error' in matter) return `${matter.error.replace(/\.$/, '')}; it was not loaded.`
  if (!Object.keys(matter.data).length) return `The agent file ${file} has no frontmatter between --- lines; it was not loaded.`
  const label = `The agent file ${file}`
  const named = textField(matter, 'name', label)
  const description = textField(matter, 'description', label)
  const model = textField(matter, 'model', label)
  for (const field of [named, description, model]) if (field && typeof field === 'object') return `${field.error.replace(/\.$/, '')}; it was not loaded.`
  const fromFile = basename(file).replace(/\.md$/, '')
  // A name is required (Claude Code's rule); one that is no id is a display name, and the file's name is the id.
  const name = typeof named !== 'string' ? undefined : NAME.test(named) ? named : NAME.test(fromFile) ? fromFile : undefined
  if (!name) return `The agent file ${file} needs a name of letters, digits, ., - and _ (in its name field or its file name); it was not loaded.`
  if (typeof description !== 'string') return `The agent file ${file} needs a description saying when to use it; it was not loaded.`
  const body = matter.body.trim()
  if (!body) return `The agent file ${file} has no instructions after its frontmatter; it was not loaded.`
  const rawTools = matter.data.tools
  const list = typeof rawTools === 'string' ? rawTools.split(',') : Array.isArray(rawTools) ? rawTools.filter((t): t is string => typeof t === 'string') : undefined
  const tools = list?.map((t) => toolName(t)).filter((t) => t !== '')
  ignored?.(ignoredFields(matter, AGENT_FIELDS))
  return {
    name,
    ...(typeof named === 'string' && named !== name ? { displayName: named } : {}),
    description,
    ...(tools && tools.length ? { tools } : {}),
    prompt: body,
    ...(typeof model === 'string' && !INHERIT.has(model) && !claudeAliasOf(model) ? { model } : {}),
    source: file,
  }
}

/** `Read` → `read`, `Bash(git log:*)` → `bash`; Rein names and MCP names pass through. */
function toolName(raw: string): string {
  const bare = raw.trim().replace(/\(.*\)$/, '').trim()
  return reinNameOf(bare.toLowerCase()) ?? bare
}
