import { createRequire } from 'node:module'

// The YAML parser costs ~45 ms to load, so it is loaded on the first file that has frontmatter, not at start-up.
const require = createRequire(import.meta.url)
let yamlParse: ((text: string) => unknown) | undefined
const parse = (text: string): unknown => (yamlParse ??= (require('yaml') as typeof import('yaml')).parse)(text)

/**
 * The YAML frontmatter of a Markdown file, as Claude Code writes it for skills and custom commands: an optional block
 * between a first line `---` and the next line `---`, then the body. A file without the block is all body.
 */
export interface Frontmatter {
  data: Record<string, unknown>
  /** The text after the closing `---` line, byte for byte (the opening blank line included). */
  body: string
  /** Each top-level `key: value` line's value as written, for fields that must be text whatever YAML makes of them. */
  raw: Record<string, unknown>
}

const OPEN = /^\uFEFF?---[ \t]*\r?\n/
const CLOSE = /^---[ \t]*(\r?\n|$)/m

/** The file split into frontmatter and body, or the one sentence that says why it cannot be (`file` names it). */
export function parseFrontmatter(text: string, file: string): Frontmatter | { error: string } {
  const open = OPEN.exec(text)
  if (!open) return { data: {}, body: text.replace(/^\uFEFF/, ''), raw: {} }
  const rest = text.slice(open[0].length)
  const close = CLOSE.exec(rest)
  if (!close) return { error: `${file} opens a frontmatter block with --- but never closes it; add a line --- after the fields.` }
  const yaml = rest.slice(0, close.index)
  const body = rest.slice(close.index + close[0].length)
  const lines = lenientLines(yaml)
  let data: unknown
  try {
    data = yaml.trim() ? parse(yaml) : {}
  } catch (error) {
    // Files written for Claude Code often hold values YAML rejects (`argument-hint: [file] [focus]`, a description
    // running over unindented `<example>` lines); read them line by line as text before calling the block broken.
    if (lines) return { data: lines, body, raw: lines }
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error)
    return { error: `${file} has frontmatter that is not valid YAML (${reason}); fix the fields between the --- lines.` }
  }
  if (data === null || data === undefined) data = {}
  if (typeof data !== 'object' || Array.isArray(data)) {
    return { error: `${file} has frontmatter that is not a set of fields; write it as name: value lines.` }
  }
  return { data: data as Record<string, unknown>, body, raw: lines ?? {} }
}

/**
 * Every field Claude Code's skills, commands and agent files may carry (Rein reads some; `ignoredFields` names the
 * rest). In the lenient reading below, a line starts a new field only with one of these keys, so a description's
 * `user: …` or `Context: …` lines stay in the description.
 */
export const KNOWN_FIELDS: ReadonlySet<string> = new Set([
  'name', 'description', 'tools', 'disallowedTools', 'model', 'color', 'permissionMode', 'skills', 'hooks', 'mcpServers',
  'memory', 'maxTurns', 'allowed-tools', 'argument-hint', 'license', 'metadata', 'version', 'compatibility',
  'disable-model-invocation', 'user-invocable', 'context', 'agent', 'when_to_use',
])

/**
 * The block read line by line when YAML refuses it, as published files are written: a line `key: value` at the left
 * margin starts a field; an indented `- item` adds to a list; any other line (an `<example>` block, a dialogue line
 * `user: …`, a wrapped sentence) continues the field being read, so a description may run over many lines unquoted.
 * A flow list value (`tools: ["Read", "Grep"]`) is read as a list. Undefined when the first line starts no field.
 */
function lenientLines(yaml: string): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {}
  let last: string | undefined
  for (const line of yaml.split(/\r?\n/)) {
    const field = /^([A-Za-z][\w-]*):(?:[ \t]+(.*?))?[ \t]*$/.exec(line)
    const item = /^[ \t]+-[ \t]+(.*?)[ \t]*$/.exec(line)
    const starts = field && (last === undefined || KNOWN_FIELDS.has(field[1]) || last !== 'description')
    if (starts) {
      last = field[1]
      out[last] = flowList(field[2] ?? '') ?? unquoted(field[2] ?? '')
    } else if (item && last && (Array.isArray(out[last]) || out[last] === '')) {
      out[last] = [...(Array.isArray(out[last]) ? (out[last] as unknown[]) : []), unquoted(item[1])]
    } else if (last && typeof out[last] === 'string' && continues(last, line)) {
      out[last] = out[last] ? `${out[last] as string}\n${line}` : line
    } else if (line.trim() && !line.trimStart().startsWith('#')) return undefined
  }
  for (const [key, value] of Object.entries(out)) if (typeof value === 'string') out[key] = value.trim()
  return out
}

/** Prose fields may run over several lines; a field line indented by mistake, or a stray `: x`, breaks the block. */
const PROSE_FIELDS = new Set(['description', 'when_to_use'])
function continues(field: string, line: string): boolean {
  if (!line.trim()) return true
  if (!PROSE_FIELDS.has(field) || line.trimStart().startsWith(':')) return false
  const key = /^[ \t]+([A-Za-z][\w-]*):/.exec(line)
  return !(key && KNOWN_FIELDS.has(key[1]))
}

/** `["Read", "Grep"]` or `[Read, Grep]` as a list of text; undefined for anything else. */
function flowList(text: string): string[] | undefined {
  if (!/^\[.*\]$/.test(text.trim())) return undefined
  try {
    const list = parse(text)
    if (Array.isArray(list) && list.every((v) => typeof v === 'string')) return list
  } catch {
    // `[file] [focus]` is no list: the value stays text.
  }
  return undefined
}

/**
 * The fields of `matter` that no prompt file format knows (not Rein's `used`, nor in KNOWN_FIELDS), sorted: most
 * likely a misspelt field, ignored, and a loader says so once for all its files. The fields Claude Code or the Agent
 * Skills format define and Rein does not use (`color`, `license`, …) are ignored quietly, as docs/skills.md lists.
 */
export function ignoredFields(matter: Frontmatter, used: readonly string[]): string[] {
  return Object.keys(matter.data).filter((key) => !used.includes(key) && !KNOWN_FIELDS.has(key)).sort()
}

/** The one sentence that names every ignored field, with how many files held it; undefined when none was. */
export function ignoredFieldsNotice(kind: string, counts: ReadonlyMap<string, number>): string | undefined {
  if (!counts.size) return undefined
  const list = [...counts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([key, n]) => `${key} (${n} file${n === 1 ? '' : 's'})`)
  return `Rein ignored ${kind} file fields it does not know: ${list.join(', ')}.`
}

/**
 * A field that must be text when present: its trimmed value, undefined when absent, or an error sentence. A value YAML
 * reads as something else (`argument-hint: [message]` is a list to YAML) is taken as written on its line.
 */
export function textField(matter: Frontmatter, key: string, file: string): string | undefined | { error: string } {
  const value = matter.data[key]
  if (value === undefined || value === null) return undefined
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  if (typeof value !== 'string') {
    const raw = matter.raw[key]
    if (typeof raw === 'string' && raw.trim()) return raw.trim()
    return { error: `${file}: the field ${key} must be text.` }
  }
  return value.trim() || undefined
}

/**
 * `allowed-tools` as Claude Code and the Agent Skills format accept it: a YAML list, or one line of rules separated by
 * commas or spaces (those inside parentheses belong to the rule: `Bash(git add:*), Read` or `Bash(git diff:*) Read`).
 */
export function toolRulesField(data: Record<string, unknown>, key: string, file: string): string[] | { error: string } {
  const value = data[key]
  if (value === undefined || value === null) return []
  if (Array.isArray(value)) {
    if (!value.every((v) => typeof v === 'string')) return { error: `${file}: every entry of ${key} must be text, like Bash(git status).` }
    return value.map((v: string) => v.trim()).filter(Boolean)
  }
  if (typeof value !== 'string') return { error: `${file}: the field ${key} must be a list of tool rules or one comma-separated line.` }
  const rules: string[] = []
  let depth = 0
  let current = ''
  for (const ch of value) {
    if (ch === '(') depth++
    if (ch === ')') depth = Math.max(0, depth - 1)
    if ((ch === ',' || /\s/.test(ch)) && depth === 0) {
      rules.push(current)
      current = ''
    } else current += ch
  }
  rules.push(current)
  return rules.map((r) => r.trim()).filter(Boolean)
}

const unquoted = (text: string): string => /^(["'])(.*)\1$/.exec(text)?.[2] ?? text
