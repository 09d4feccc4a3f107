import { mergeSettings, type Settings } from '../../../config/settings.js'
import { parseServerMap, type McpServerConfig } from '../../../mcp/config.js'
import type { AgentType } from '../../../subagents/agent-types.js'
import { agentTypesFrom, managedRules, settingsArg } from '../claude-flags.js'
import type { InitializeRequest } from './wire.js'

/** The SDK's marker between the cacheable and the per-session part of a custom prompt; Rein has one system text. */
const DYNAMIC_BOUNDARY = '__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__'

/** Fields of `initialize` that shape how the agent opens. */
export interface InitOptions {
  /** Replaces (`replace`) or follows (`append`) the system prompt, as `--system-prompt` and `--append-system-prompt` do. */
  systemPrompt?: { replace?: string; append?: string }
  /** The SDK's `agents`: subagent types the `task` tool runs. */
  agentTypes: AgentType[]
  /**
   * Settings the SDK sends in `initialize` instead of on the command line (its `*Delivery: 'initialize'` options):
   * `settings` as `--settings`, `disallowedTools` as deny rules, `managedSettings`' deny and ask rules.
   */
  settingsOverlay?: Settings
  /** The hooks of `initialize`'s `settings`: the program's own, trusted as `--settings` hooks are. */
  flagHooks?: { hooks: unknown; from: string }
  /** `initialize`'s `mcpServers` (servers the SDK would pass as `--mcp-config`). */
  configServers: McpServerConfig[]
}

/**
 * What an `initialize` asks of the session, as `openAgent` takes it, with one sentence per part Rein cannot use.
 *
 * The SDK sends `systemPrompt` as blocks for a custom prompt (`Options.systemPrompt` a string or a list) and
 * `appendSystemPrompt` for the `claude_code` preset's `append`; the preset alone sends neither. Blocks joined by
 * blank lines replace Rein's system prompt. An empty custom prompt is what the SDK sends when the program sets no
 * `systemPrompt` (Claude Code's minimal prompt for tool calling): Rein then keeps its own, which is that prompt here.
 */
export function initOptions(init: InitializeRequest, cwd: string): { options: InitOptions; problems: string[] } {
  const problems: string[] = []
  const blocks = (init.systemPrompt ?? []).filter((b) => b !== DYNAMIC_BOUNDARY)
  const custom = blocks.join('\n\n')
  const append = init.appendSystemPrompt
  const systemPrompt = custom.trim() || append ? { ...(custom.trim() ? { replace: custom } : {}), ...(append ? { append } : {}) } : undefined
  const agents = agentTypesFrom(init.agents ?? {}, 'the SDK program (initialize)')
  for (const problem of agents.problems) problems.push(`The SDK's agents in initialize: ${problem} It was left out.`)
  if (init.jsonSchema !== undefined) problems.push("The SDK's jsonSchema (structured output) is not supported and was ignored; the result is the model's text.")
  const delivered = deliveredSettings(init, cwd, problems)
  return { options: { ...(systemPrompt ? { systemPrompt } : {}), agentTypes: agents.types, ...delivered }, problems }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The settings, deny rules and servers an `initialize` carries in place of flags; each bad part is one problem. */
function deliveredSettings(init: InitializeRequest, cwd: string, problems: string[]): Pick<InitOptions, 'settingsOverlay' | 'flagHooks' | 'configServers'> {
  let overlay: Settings = {}
  let flagHooks: InitOptions['flagHooks']
  if (init.settings !== undefined) {
    try {
      const given = typeof init.settings === 'string' ? settingsArg(init.settings, cwd) : settingsArg(JSON.stringify(init.settings), cwd)
      overlay = given.settings
      if (given.settings.hooks !== undefined) flagHooks = { hooks: given.settings.hooks, from: '<initialize settings>' }
    } catch (error) {
      problems.push(`The SDK's settings in initialize were not used: ${(error as Error).message}`)
    }
  }
  const deny: string[] = []
  if (init.disallowedTools !== undefined) {
    if (Array.isArray(init.disallowedTools) && init.disallowedTools.every((t) => typeof t === 'string')) deny.push(...init.disallowedTools)
    else problems.push("The SDK's disallowedTools in initialize is not a list of rules, so it was not used.")
  }
  if (deny.length) overlay = mergeSettings(overlay, { permissions: { deny } }) as Settings
  const managed = isRecord(init.managedSettings) && isRecord(init.managedSettings.permissions) ? (init.managedSettings as Settings) : undefined
  if (managed) overlay = mergeSettings(overlay, managedRules(managed)) as Settings
  const servers = parseServerMap(init.mcpServers, 'initialize', 'mcp-config')
  problems.push(...servers.problems.map((p) => `${p} (The SDK's mcpServers in initialize.)`))
  return { ...(Object.keys(overlay).length ? { settingsOverlay: overlay } : {}), ...(flagHooks ? { flagHooks } : {}), configServers: servers.servers }
}
