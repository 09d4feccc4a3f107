import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { loadingRefusal } from '../../config/read-guard.js'
import { gateDirectory, readGated, skippedNotice, type GateFolder, type Refusal } from '../../fs/read-gate.js'
import { claudeAliasOf } from '../../llm/catalog.js'
import { builtinTools } from '../../tools/registry.js'
import { TASK_TOOL } from '../../tools/task-facts.js'
import type { AgentType } from '../../subagents/agent-types.js'

/**
 * Custom agents from Markdown files in Claude Code's format: YAML frontmatter with `name`, `description`, `tools`
 * (comma-separated or a list; Claude Code's names or Rein's) and `model`, and the body as the agent's instructions.
 * Where the same name is defined twice, the first directory wins: the project's `.rein/agents`, its `.claude/agents`,
 * then `$REIN_HOME/agents` and `~/.claude/agents`. Every file passes the read gate (`src/fs/read-gate.ts`): a project's
 * must stay in its folder below the workspace root, the user's in theirs, and none may be one the read guard
 * (`refuses`; by default the one the settings define) refuses. A file the gate refuses or that cannot be read as an
 * agent is reported in one sentence and the others load.
 */
export function loadAgentFiles(options: { cwd: string; home: string; userHome: string; refuses?: Refusal }): { agents: AgentType[]; problems: string[] } {
  const refuses = options.refuses ?? loadingRefusal(undefined, { cwd: options.cwd, reinHome: options.home, userHome: options.userHome })
  const project = (dir: string): GateFolder => ({ dir, base: options.cwd })
  const user = (dir: string): GateFolder => ({ dir, base: dir })
  const folders = [
    project(join(options.cwd, '.rein', 'agents')),
    project(join(options.cwd, '.claude', 'agents')),
    user(join(options.home, 'agents')),
    user(join(options.userHome, '.claude', 'agents')),
  ]
  const agents = new Map<string, AgentType>()
  const problems: string[] = []
  const seen = new Set<string>()
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
      const parsed = parseAgentFile(read.bytes.toString('utf8'), file)
      if (typeof parsed === 'string') problems.push(parsed)
      else if (!agents.has(parsed.name)) agents.set(parsed.name, parsed)
    }
  }
  return { agents: [...agents.values()], problems }
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

const NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/i
/** Claude Code's tool names (as agent files list them) to Rein's, from each tool's own facts; `Task` is the task tool. */
let reinNames: Map<string, string> | undefined
const reinNameOf = (peer: string): string | undefined =>
  (reinNames ??= new Map([
    ...[...builtinTools(), TASK_TOOL].flatMap((t) => (t.peerNames ? [[t.peerNames.claudeCode.toLowerCase(), t.name] as const] : [])),
  ])).get(peer)
/** Claude Code's model aliases (and any `claude*` id): Rein has no such models, so the child runs on the parent's. */
const INHERIT = new Set(['inherit', 'sonnet', 'opus', 'haiku'])

/** One agent file, or the sentence that says why it is not one. */
export function parseAgentFile(text: string, file: string): AgentType | string {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text.replace(/^\uFEFF/, ''))
  if (!match) return `The agent file ${file} has no frontmatter between --- lines; it was not loaded.`
  const fields = frontmatter(match[1])
  if (typeof fields === 'string') return `The agent file ${file} has unreadable frontmatter (${fields}); it was not loaded.`
  const name = fields.get('name')
  if (typeof name !== 'string' || !NAME.test(name)) {
    return `The agent file ${file} needs a name of letters, digits, - and _; it was not loaded.`
  }
  const description = fields.get('description')
  if (typeof description !== 'string' || !description.trim()) {
    return `The agent file ${file} needs a description saying when to use it; it was not loaded.`
  }
  const body = match[2].trim()
  if (!body) return `The agent file ${file} has no instructions after its frontmatter; it was not loaded.`
  const rawTools = fields.get('tools')
  const list = typeof rawTools === 'string' ? rawTools.split(',') : rawTools
  const tools = list?.map((t) => toolName(t)).filter((t) => t !== '')
  const model = fields.get('model')
  if (model !== undefined && typeof model !== 'string') return `The agent file ${file} has a model that is not one name; it was not loaded.`
  return {
    name,
    description: description.trim(),
    ...(tools && tools.length ? { tools } : {}),
    prompt: body,
    ...(model && !INHERIT.has(model.trim()) && !claudeAliasOf(model.trim()) ? { model: model.trim() } : {}),
    source: file,
  }
}

/** `Read` → `read`, `Bash(git log:*)` → `bash`; Rein names and MCP names pass through. */
function toolName(raw: string): string {
  const bare = raw.trim().replace(/\(.*\)$/, '').trim()
  return reinNameOf(bare.toLowerCase()) ?? bare
}

/**
 * The small part of YAML agent files use: `key: value` lines (quotes removed), `key: [a, b]`, a key followed by
 * `- item` lines, and `key: |` or `>` followed by indented lines. Anything else is a problem, named.
 */
function frontmatter(text: string): Map<string, string | string[]> | string {
  const fields = new Map<string, string | string[]>()
  const lines = text.split(/\r?\n/)
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]
    if (!line.trim() || line.trim().startsWith('#')) continue
    const kv = /^([A-Za-z_][\w-]*):\s*(.*)$/.exec(line)
    if (!kv) return `line ${i + 2} is not "key: value"`
    const [, key, rest] = kv
    if (rest === '' || rest === '|' || rest === '>' || rest === '|-' || rest === '>-') {
      const block: string[] = []
      while (i + 1 < lines.length && (/^\s+\S/.test(lines[i + 1]) || lines[i + 1].trim() === '')) block.push(lines[++i].trim())
      const items = block.filter((b) => b.startsWith('- '))
      if (rest === '' && items.length && items.length === block.filter(Boolean).length) fields.set(key, items.map((b) => unquote(b.slice(2))))
      else fields.set(key, block.join(rest.startsWith('|') ? '\n' : ' ').trim())
    } else if (rest.startsWith('[')) {
      if (!rest.endsWith(']')) return `line ${i + 2} opens a list it does not close`
      fields.set(key, rest.slice(1, -1).split(',').map(unquote).filter(Boolean))
    } else fields.set(key, unquote(rest))
  }
  return fields
}

function unquote(value: string): string {
  const v = value.trim()
  return (v.startsWith('"') && v.endsWith('"')) || (v.startsWith("'") && v.endsWith("'")) ? v.slice(1, -1) : v
}
