import { type Command, InvalidArgumentError, Option } from 'commander'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Effort } from '../../llm/adapter.js'
import { claudeAliasOf } from '../../llm/catalog.js'
import type { PermissionMode } from '../../agent/types.js'
import { mergeSettings, SETTING_SOURCES, type SettingSource, type Settings } from '../../config/settings.js'
import type { OpenAgentOptions } from '../../runtime/open.js'
import { parseServerMap, type McpServerConfig } from '../../mcp/config.js'
import { claudeToolNames, reinToolName } from '../../tools/claude-names.js'
import type { AgentType } from '../../subagents/agent-types.js'
import { UsageError } from '../fail.js'

/**
 * Claude Code's command-line surface (docs/claude-code.md): the flags `claude -p` scripts and the Agent SDK pass,
 * accepted beside Rein's own. Each is either turned into a Rein option here or accepted and named once on stderr as
 * having no effect.
 */
export interface ClaudeFlags {
  verbose?: boolean
  dangerouslySkipPermissions?: boolean
  allowedTools?: string[]
  disallowedTools?: string[]
  tools?: string[]
  mcpConfig?: string[]
  strictMcpConfig?: boolean
  systemPrompt?: string
  systemPromptFile?: string
  appendSystemPrompt?: string
  appendSystemPromptFile?: string
  settings?: string
  settingSources?: string
  permissionPromptTool?: string
  addDir?: string[]
  agents?: string
  pluginDir?: string[]
  fallbackModel?: string
  forkSession?: boolean
  replayUserMessages?: boolean
  maxThinkingTokens?: number
  thinking?: string
  managedSettings?: string
  /** `--permission-mode dontAsk` was given (the mode itself is then `default`). */
  dontAsk?: boolean
  /** Flags accepted for compatibility that change nothing in Rein, by flag text. */
  [ignored: `ignored:${string}`]: unknown
}

/** Rein's permission mode for a Claude Code mode name or Rein's own. `dontAsk` is Rein's default: one-shot mode never asks a person. */
const MODES: Record<string, PermissionMode> = {
  default: 'default',
  acceptEdits: 'accept-edits',
  'accept-edits': 'accept-edits',
  plan: 'plan',
  bypassPermissions: 'bypass',
  bypass: 'bypass',
  dontAsk: 'default',
}

export function permissionModeArg(value: string): PermissionMode {
  const mode = MODES[value]
  if (!mode) throw new InvalidArgumentError(`expected one of ${Object.keys(MODES).join(', ')}.`)
  return mode
}

/** Claude Code's effort names beside Rein's: `medium` is Rein's `high`, `xhigh` its `max`. */
const EFFORTS: Record<string, Effort> = { off: 'off', low: 'low', medium: 'high', high: 'high', xhigh: 'max', max: 'max' }

export function effortArg(value: string): Effort {
  const effort = EFFORTS[value]
  if (!effort) throw new InvalidArgumentError(`expected one of ${Object.keys(EFFORTS).join(', ')}.`)
  return effort
}

/**
 * A tool list as Claude Code takes it: values separated by commas or spaces (`"Bash(git log:*) Edit,Read"`), never
 * inside parentheses; repeated flags add up.
 */
export function toolListArg(value: string, previous: string[] | undefined): string[] {
  const out = [...(previous ?? [])]
  let depth = 0
  let word = ''
  for (const ch of value) {
    if (ch === '(') depth++
    if (ch === ')') depth = Math.max(0, depth - 1)
    if (depth === 0 && (ch === ',' || /\s/.test(ch))) {
      if (word) out.push(word)
      word = ''
    } else word += ch
  }
  if (word) out.push(word)
  return out
}

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value]

/** Flags that Rein accepts and that change nothing, with what each would do in Claude Code. */
const IGNORED: readonly { flags: string; does: string }[] = [
  { flags: '--fallback-model <model>', does: 'switch models when the first is overloaded' },
  { flags: '--debug [filter]', does: 'print debug output' },
  { flags: '--debug-file <file>', does: 'write debug output to a file' },
  { flags: '--debug-to-stderr', does: 'print debug output on stderr' },
  { flags: '--betas <betas>', does: 'send Anthropic beta headers' },
  { flags: '--include-hook-events', does: 'print hook events in stream-json' },
  { flags: '--agent <name>', does: 'run as a named agent' },
  { flags: '--json-schema <schema>', does: 'ask for structured output' },
  { flags: '--task-budget <tokens>', does: 'bound a task by tokens' },
  { flags: '--thinking-display <mode>', does: 'choose how thinking is shown' },
  { flags: '--permission-prompts <mode>', does: 'choose how permission prompts are shown' },
  { flags: '--allow-dangerously-skip-permissions', does: 'allow switching to bypassPermissions later' },
  { flags: '--no-session-persistence', does: 'keep the session out of the store (Rein always logs it)' },
  { flags: '--ide', does: 'connect to an IDE' },
  { flags: '--disable-slash-commands', does: 'turn off slash commands' },
  { flags: '--channels <channel>', does: 'subscribe to a release channel' },
  { flags: '--session-mirror', does: "mirror the transcript to the SDK's session store" },
  { flags: '--project-config-root <dir>', does: 'read project settings from another directory' },
  { flags: '--resume-session-at <message>', does: 'resume only up to that message (Rein resumes the whole session; --fork <id>@<seq> cuts)' },
  { flags: '--resume-drops-turn <turn>', does: 'drop the last turn on resume' },
]

/** Adds Claude Code's flags to the root command. Rein's own spellings of the same ideas (`--allow`) stay. */
export function addClaudeFlags(command: Command): Command {
  command
    .option('--verbose', "Claude Code's full stream-json output; Rein's stream-json is always complete")
    .option('--dangerously-skip-permissions', 'run every tool call without asking (--permission-mode bypass)')
    .addOption(new Option('--allowedTools, --allowed-tools <tools...>', 'allow rules in Claude Code form, comma or space separated').argParser(toolListArg))
    .addOption(new Option('--disallowedTools, --disallowed-tools <tools...>', 'deny rules in Claude Code form').argParser(toolListArg))
    .addOption(new Option('--tools <tools...>', 'the built-in tools the model may use ("" for none, "default" for all)').argParser(toolListArg))
    .addOption(new Option('--mcp-config <file-or-json...>', 'MCP servers from a Claude Code style {"mcpServers": …} file or JSON text').argParser(collect))
    .option('--system-prompt <text>', "replace Rein's system prompt")
    .option('--system-prompt-file <file>', "replace Rein's system prompt with a file's text")
    .option('--append-system-prompt <text>', "add text after Rein's system prompt")
    .option('--append-system-prompt-file <file>', "add a file's text after Rein's system prompt")
    .option('--settings <file-or-json>', 'more settings for this run, as a file or JSON text (read after every settings file)')
    .option('--setting-sources <sources>', 'the settings layers read, comma separated: user, project, local ("" for none)')
    .option('--strict-mcp-config', 'use only the MCP servers of --mcp-config (and of an SDK program)')
    .option('--permission-prompt-tool <tool>', 'who answers permission questions: "stdio" is the SDK over the control protocol')
    .addOption(new Option('--add-dir <dirs...>', 'more directories that count as the workspace').argParser(collect))
    .option('--agents <json>', 'subagents as JSON: {"name": {"description", "prompt", "tools"?, "model"?}}')
    .addOption(new Option('--plugin-dir <dir...>', 'load a Claude Code plugin from a directory').argParser(collect))
    .addOption(new Option('--plugin-dir-no-mcp <dir...>', 'load a plugin without its MCP servers').argParser(collect).hideHelp())
    .option('--fork-session', 'with --resume: continue in a new session forked from it')
    .option('--replay-user-messages', "Claude Code's echo of stdin user messages; Rein's stream-json always has them")
    .addOption(new Option('--max-thinking-tokens <n>', 'thinking budget, mapped to --effort').argParser(nonNegativeInt).hideHelp())
    .addOption(new Option('--thinking <mode>', 'adaptive, enabled or disabled (disabled is --effort off)').hideHelp())
  for (const { flags } of IGNORED) command.addOption(new Option(flags, 'accepted for Claude Code scripts; no effect').hideHelp())
  // `dontAsk` is Rein's `default` mode, plus: nobody is asked, not even the SDK program (its canUseTool).
  command.on('option:permission-mode', (raw: string) => command.setOptionValue('dontAsk', raw === 'dontAsk'))
  // The SDK's ways of moving options into initialize: Rein always waits for initialize and reads those fields there.
  command.addOption(new Option('--await-initialize').hideHelp())
  command.addOption(new Option('--initialize-fields <fields>').hideHelp())
  command.addOption(new Option('--managed-settings-in-initialize').hideHelp())
  command.addOption(new Option('--managed-settings <file-or-json>', "an embedding program's restrictive settings: their deny and ask rules hold").hideHelp())
  return command
}

function nonNegativeInt(value: string): number {
  const n = Number(value)
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number of tokens.')
  return n
}

/** What the Claude Code flags ask of the run, in Rein's terms. */
export interface ClaudeRun {
  permissionMode?: PermissionMode
  allow: string[]
  /** Read after every settings file: `--settings`, `--disallowedTools` (deny rules), `--add-dir`. */
  settingsOverlay?: Settings
  mcpServers: McpServerConfig[]
  systemPrompt?: { replace?: string; append?: string }
  /** `--tools`: Rein's names of the built-in tools the model may use; undefined means all. */
  builtinTools?: string[]
  model?: string
  effort?: Effort
  /** `--fork-session`: open the resumed session as a fork. */
  forkSession: boolean
  /** `--agents`: subagent types for this run. */
  agents?: AgentType[]
  pluginDirs: string[]
  /** `--setting-sources`, `--strict-mcp-config` and the hooks of `--settings`, as `openAgent` takes them. */
  open: Pick<OpenAgentOptions, 'settingSources' | 'strictMcpConfig' | 'flagHooks'>
}

/**
 * Turns the Claude Code flags into Rein options, checking each value; a bad one is a `UsageError` with one sentence.
 * `say` prints a notice on stderr (a flag with no effect, a model mapped to DeepSeek's).
 */
export function claudeRun(
  flags: ClaudeFlags & { model?: string; effort?: Effort; permissionMode?: PermissionMode },
  cwd: string,
  say: (message: string) => void,
): ClaudeRun {
  const out: ClaudeRun = { allow: [], mcpServers: [], forkSession: flags.forkSession === true, pluginDirs: [], open: {} }
  if (flags.dangerouslySkipPermissions) {
    if (flags.permissionMode && flags.permissionMode !== 'bypass') throw new UsageError('--dangerously-skip-permissions cannot be combined with another --permission-mode.')
    out.permissionMode = 'bypass'
  }
  out.allow = flags.allowedTools ?? []
  let overlay: Settings = {}
  if (flags.settings !== undefined) {
    const given = settingsArg(flags.settings, cwd)
    overlay = given.settings
    // Hooks in --settings are the user's own, like those of their settings file: read by the hook loader, trusted.
    if (given.settings.hooks !== undefined) out.open.flagHooks = { hooks: given.settings.hooks, from: given.from }
  }
  if (flags.settingSources !== undefined) out.open.settingSources = settingSourcesArg(flags.settingSources)
  if (flags.strictMcpConfig) out.open.strictMcpConfig = true
  if (flags.managedSettings !== undefined) overlay = mergeSettings(overlay, managedRules(settingsArg(flags.managedSettings, cwd).settings)) as Settings
  if (flags.disallowedTools?.length) overlay = { ...overlay, permissions: { ...overlay.permissions, deny: [...(overlay.permissions?.deny ?? []), ...flags.disallowedTools] } }
  if (flags.addDir?.length) {
    const dirs = flags.addDir.map((d) => resolve(cwd, d))
    for (const dir of dirs) if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`--add-dir ${dir}: no such directory.`)
    overlay = { ...overlay, permissions: { ...overlay.permissions, additionalDirectories: [...(overlay.permissions?.additionalDirectories ?? []), ...dirs] } }
  }
  if (Object.keys(overlay).length) out.settingsOverlay = overlay
  for (const value of flags.mcpConfig ?? []) out.mcpServers.push(...mcpConfigArg(value, cwd))
  out.systemPrompt = systemPromptArgs(flags, cwd)
  if (flags.tools) out.builtinTools = toolsArg(flags.tools)
  if (flags.model) out.model = modelArg(flags.model, say)
  if (flags.fallbackModel) modelArg(flags.fallbackModel, () => undefined)
  out.effort = flags.effort ?? thinkingEffort(flags)
  if (flags.agents !== undefined) out.agents = agentsArg(flags.agents)
  out.pluginDirs = [...(flags.pluginDir ?? []), ...(((flags as Record<string, unknown>).pluginDirNoMcp as string[] | undefined) ?? [])].map((d) => resolve(cwd, d))
  for (const dir of out.pluginDirs) if (!existsSync(dir)) throw new UsageError(`--plugin-dir ${dir}: no such directory.`)
  if (flags.permissionPromptTool !== undefined && flags.permissionPromptTool !== 'stdio') {
    say(`--permission-prompt-tool ${flags.permissionPromptTool} has no effect: Rein asks only over the control protocol (stdio).`)
  }
  for (const { flags: spelling, does } of IGNORED) {
    const key = optionKey(spelling)
    const value = (flags as Record<string, unknown>)[key]
    const given = key === 'sessionPersistence' ? value === false : value !== undefined && value !== false
    if (given) say(`${spelling.split(' ')[0]} has no effect in Rein (in Claude Code it would ${does}).`)
  }
  return out
}

/** The camel-case key commander stores a flag under (`--no-x` stores `x`). */
function optionKey(spelling: string): string {
  const long = spelling.split(' ')[0].replace(/^--(no-)?/, '')
  return long.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase())
}

/** `--setting-sources user,project,local`: a comma list of layers (`""` is none), each named once at most. */
export function settingSourcesArg(value: string): SettingSource[] {
  const names = value
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean)
  for (const name of names) {
    if (!SETTING_SOURCES.includes(name as SettingSource)) {
      throw new UsageError(`--setting-sources: "${name.slice(0, 40)}" is not a settings source; use a comma list of ${SETTING_SOURCES.join(', ')}, or "" for none.`)
    }
  }
  return [...new Set(names as SettingSource[])]
}

/** A JSON argument: text starting with `{`, else a file's path. `what` names the flag in messages. */
function jsonArg(value: string, cwd: string, what: string): unknown {
  return jsonArgFrom(value, cwd, what).value
}

/** `jsonArg`, with where the JSON came from: the file's path, or `<what>` for text. */
function jsonArgFrom(value: string, cwd: string, what: string): { value: unknown; from: string } {
  const trimmed = value.trim()
  let text = trimmed
  let where = 'the text'
  if (!trimmed.startsWith('{')) {
    const file = resolve(cwd, trimmed)
    if (!existsSync(file) || !statSync(file).isFile()) throw new UsageError(`${what} ${file}: no such file; pass a JSON file or JSON text.`)
    text = readFileSync(file, 'utf8')
    where = file
  }
  try {
    return { value: JSON.parse(text) as unknown, from: where === 'the text' ? `<${what}>` : where }
  } catch (error) {
    throw new UsageError(`${what}: ${where} is not valid JSON (${(error as Error).message}).`)
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * The part of Claude Code's managed settings (`--managed-settings`, `managedSettings` in initialize) Rein honours:
 * their deny and ask rules, which only narrow. The policy's other keys have no Rein meaning.
 */
export function managedRules(managed: Settings): Settings {
  const strings = (list: unknown): string[] => (Array.isArray(list) ? list.filter((r): r is string => typeof r === 'string') : [])
  const deny = strings(managed.permissions?.deny)
  const ask = strings(managed.permissions?.ask)
  return deny.length || ask.length ? { permissions: { ...(deny.length ? { deny } : {}), ...(ask.length ? { ask } : {}) } } : {}
}

/** `--settings` (and the SDK's settings in `initialize`): JSON text or a file's path, holding one object of settings. */
export function settingsArg(value: string, cwd: string): { settings: Settings; from: string } {
  const parsed = jsonArgFrom(value, cwd, '--settings')
  if (!isRecord(parsed.value)) throw new UsageError('--settings: expected a JSON object of settings.')
  return { settings: parsed.value as Settings, from: parsed.from }
}

function mcpConfigArg(value: string, cwd: string): McpServerConfig[] {
  const parsed = jsonArg(value, cwd, '--mcp-config')
  if (!isRecord(parsed) || !isRecord(parsed.mcpServers)) throw new UsageError('--mcp-config: expected {"mcpServers": {"name": {"command": …}}}.')
  const { servers, problems } = parseServerMap(parsed.mcpServers, '--mcp-config', 'mcp-config')
  if (problems.length) throw new UsageError(`--mcp-config: ${problems[0]}`)
  return servers
}

function systemPromptArgs(flags: ClaudeFlags, cwd: string): ClaudeRun['systemPrompt'] {
  const file = (path: string | undefined, what: string): string | undefined => {
    if (path === undefined) return undefined
    const full = resolve(cwd, path)
    if (!existsSync(full) || !statSync(full).isFile()) throw new UsageError(`${what} ${full}: no such file.`)
    return readFileSync(full, 'utf8')
  }
  if (flags.systemPrompt !== undefined && flags.systemPromptFile !== undefined) throw new UsageError('Use only one of --system-prompt and --system-prompt-file.')
  const replace = flags.systemPrompt ?? file(flags.systemPromptFile, '--system-prompt-file')
  const appended = [flags.appendSystemPrompt, file(flags.appendSystemPromptFile, '--append-system-prompt-file')].filter((t) => t !== undefined)
  if (replace === undefined && appended.length === 0) return undefined
  return { ...(replace !== undefined ? { replace } : {}), ...(appended.length ? { append: appended.join('\n\n') } : {}) }
}

/** `--tools`: `default` is every tool, an empty list none; each name in either spelling. */
function toolsArg(names: readonly string[]): string[] | undefined {
  if (names.length === 1 && names[0] === 'default') return undefined
  return names.map((name) => {
    const rein = reinToolName(name)
    if (!rein) throw new UsageError(`--tools: "${name}" is not a built-in tool; use some of ${claudeToolNames().join(', ')}.`)
    return rein
  })
}

/** Claude's short model names, as DeepSeek's Anthropic wire would serve them. */
const CLAUDE_SHORT: Record<string, string> = { opus: 'claude-opus', sonnet: 'claude-sonnet', haiku: 'claude-haiku', opusplan: 'claude-opus', default: 'claude-sonnet' }

/** A Claude model name becomes the DeepSeek model DeepSeek maps it to, said once; any other id passes unchanged. */
export function modelArg(model: string, say: (message: string) => void): string {
  const claude = CLAUDE_SHORT[model] ?? (model.startsWith('claude') ? model : undefined)
  const target = claude ? claudeAliasOf(claude) : undefined
  if (!target) return model
  say(`--model ${model} is a Claude model; running ${target}, the DeepSeek model DeepSeek serves for it.`)
  return target
}

/** `--max-thinking-tokens` and `--thinking` as an effort: none or disabled is off, a small budget low, a large one max. */
function thinkingEffort(flags: ClaudeFlags): Effort | undefined {
  if (flags.thinking !== undefined && !['adaptive', 'enabled', 'disabled'].includes(flags.thinking)) {
    throw new UsageError(`--thinking ${flags.thinking}: expected adaptive, enabled or disabled.`)
  }
  if (flags.thinking === 'disabled' || flags.maxThinkingTokens === 0) return 'off'
  if (flags.maxThinkingTokens === undefined) return undefined
  return flags.maxThinkingTokens <= 4_096 ? 'low' : flags.maxThinkingTokens <= 32_000 ? 'high' : 'max'
}

/**
 * `--agents`: Claude Code's `{"name": {"description", "prompt", "tools"?, "model"?}}` as subagent types. A bad
 * agent ends the run with one sentence.
 */
function agentsArg(value: string): AgentType[] {
  let parsed: unknown
  try {
    parsed = JSON.parse(value)
  } catch (error) {
    throw new UsageError(`--agents is not valid JSON (${(error as Error).message}); pass {"name": {"description": …, "prompt": …}}.`)
  }
  if (!isRecord(parsed)) throw new UsageError('--agents: expected a JSON object of agents by name.')
  const { types, problems } = agentTypesFrom(parsed, '--agents')
  if (problems.length) throw new UsageError(`--agents: ${problems[0]}`)
  return types
}

/**
 * The SDK's `AgentDefinition`s by name (from `--agents` or `initialize`) as subagent types, and one sentence per
 * agent that cannot be one. Tools take either spelling; `disallowedTools` narrows `tools` (or, without them, the
 * built-in tools); a Claude model name (or `inherit`) runs on the session's model, as in agent files.
 */
export function agentTypesFrom(agents: Record<string, unknown>, source: string): { types: AgentType[]; problems: string[] } {
  const types: AgentType[] = []
  const problems: string[] = []
  const toolNames = (list: unknown): string[] | null | undefined =>
    list === undefined ? undefined : Array.isArray(list) && list.every((t) => typeof t === 'string') ? list.map((t) => reinToolName(t.replace(/\(.*\)$/, '')) ?? t) : null
  for (const [name, agent] of Object.entries(agents)) {
    if (!/^[a-z0-9][a-z0-9_.-]{0,63}$/i.test(name)) {
      problems.push(`"${name.slice(0, 40)}" is not an agent name (letters, digits, ., - and _).`)
      continue
    }
    if (!isRecord(agent) || typeof agent.description !== 'string' || typeof agent.prompt !== 'string') {
      problems.push(`agent "${name}" needs a "description" and a "prompt", both text.`)
      continue
    }
    const tools = toolNames(agent.tools)
    const denied = toolNames(agent.disallowedTools)
    if (tools === null || denied === null) {
      problems.push(`agent "${name}" has "${tools === null ? 'tools' : 'disallowedTools'}" that is not a list of tool names.`)
      continue
    }
    if (agent.model !== undefined && typeof agent.model !== 'string') {
      problems.push(`agent "${name}" has a "model" that is not one name.`)
      continue
    }
    const model = agent.model === undefined || agent.model === 'inherit' || CLAUDE_SHORT[agent.model] || agent.model.startsWith('claude') ? undefined : agent.model
    const offered = denied?.length ? (tools ?? claudeToolNames().map((t) => reinToolName(t) as string)).filter((t) => !denied.includes(t)) : tools
    types.push({ name, description: agent.description, prompt: agent.prompt, ...(offered ? { tools: offered } : {}), ...(model ? { model } : {}), source })
  }
  return { types, problems }
}
