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
  const lines = plainLines(yaml)
  let data: unknown
  try {
    data = yaml.trim() ? parse(yaml) : {}
  } catch (error) {
    // Files written for Claude Code often hold values YAML rejects (`argument-hint: [file] [focus]`); read plain
    // `key: value` lines as text, as Claude Code does, before calling the block broken.
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
 * The block read as `key: value` lines, each value the text after the colon (indented `- item` lines make the key a
 * list); undefined when some line is neither.
 */
function plainLines(yaml: string): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {}
  let last: string | undefined
  for (const line of yaml.split(/\r?\n/)) {
    if (!line.trim() || line.trimStart().startsWith('#')) continue
    const field = /^([A-Za-z][\w-]*):[ \t]*(.*?)[ \t]*$/.exec(line)
    const item = /^[ \t]+-[ \t]+(.*?)[ \t]*$/.exec(line)
    if (field) {
      last = field[1]
      out[last] = unquoted(field[2])
    } else if (item && last) {
      out[last] = [...(Array.isArray(out[last]) ? (out[last] as unknown[]) : []), unquoted(item[1])]
    } else return undefined
  }
  return out
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
