import { readFileSync } from 'node:fs'
import type { PermissionMode } from '../../../agent/types.js'
import type { Effort } from '../../../llm/adapter.js'
import { KNOWN_MODEL_IDS } from '../../../llm/catalog.js'
import type { OpenedAgent } from '../../../runtime/open.js'
import { offeredCommands } from '../../../prompt-files/commands/listing.js'
import { isBuiltinCommand } from '../../../slash/builtins.js'
import type { ControlChannel } from './channel.js'
import { promptRoots } from '../../../plugins/roots.js'

const version = (JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as { version: string }).version

/** Claude Code's permission modes as Rein's. `dontAsk` is `default` with every question refused unasked. */
const MODES: Record<string, PermissionMode> = {
  default: 'default',
  acceptEdits: 'accept-edits',
  plan: 'plan',
  bypassPermissions: 'bypass',
  dontAsk: 'default',
}

/**
 * A thinking budget in tokens as Rein's effort (docs/claude-code.md): 0 is off, up to 4,096 low, up to 32,000 high,
 * more max. `null` goes back to the effort the session started with.
 */
export function effortForBudget(tokens: number | null, initial: Effort): Effort {
  if (tokens === null) return initial
  if (tokens <= 0) return 'off'
  if (tokens <= 4096) return 'low'
  if (tokens <= 32_000) return 'high'
  return 'max'
}

/** The state the handlers share with the permission prompt: whether `dontAsk` is on. */
export interface ControlState {
  dontAsk: boolean
  /** Turns an `interrupt` request cancelled: their end is the SDK's doing, not a failure of the run. */
  interrupted: Set<number>
}

/** Claude Code's MCP statuses for Rein's connection states (as the init line reports them). */
function mcpStatus(state: string): string {
  if (state === 'connected') return state
  if (state === 'failed' || state === 'restarting') return 'failed'
  if (state === 'closed') return 'disabled'
  return 'pending'
}

/** The models a session can switch to, as the SDK's `ModelInfo`. */
export function modelList(): Record<string, unknown>[] {
  return KNOWN_MODEL_IDS.map((id) => ({
    value: id,
    displayName: id,
    description: `DeepSeek ${id}`,
    supportsEffort: true,
    supportedEffortLevels: ['low', 'high', 'max'],
  }))
}

/** What `initialize` answers once the agent is open: commands, agents, models and the (DeepSeek) account. */
export function initializeResponse(
  opened: OpenedAgent,
  /** Whether the request's hooks were registered; undefined when it sent none. */
  hooksApplied: boolean | undefined,
): Record<string, unknown> {
  const { offered } = offeredCommands(opened.agent.cwd, isBuiltinCommand, process.env, promptRoots(opened.plugins))
  // The SDK's own agents are among the types: initialize registered them before the agent opened.
  const agents = [...opened.subagents.types.values()].map((t) => ({ name: t.name, description: t.description, ...(t.model ? { model: t.model } : {}) }))
  return {
    commands: offered.map((c) => ({ name: c.name, description: c.description, argumentHint: c.hint ?? '' })),
    agents,
    output_style: 'default',
    available_output_styles: ['default'],
    models: modelList(),
    account: { apiKeySource: 'none', tokenSource: 'none' },
    ...(hooksApplied !== undefined ? { hooks_applied: hooksApplied } : {}),
    claude_code_version: version,
    pending_permission_requests: [],
  }
}

/**
 * The requests the SDK sends once the agent is open. Each answers as Claude Code does or with an error naming what
 * Rein cannot do; none waits for the running turn.
 */
export function registerAgentHandlers(channel: ControlChannel, opened: OpenedAgent, state: ControlState): void {
  const { agent } = opened
  const initialModel = agent.config.model
  const initialEffort = agent.config.effort
  channel.handle('interrupt', () => {
    // As Esc in the terminal: the running turn ends cancelled, queued messages stay queued.
    const turn = agent.session.last('turn/start')?.data.turn
    if (agent.busy && turn !== undefined) state.interrupted.add(turn)
    agent.cancel()
    return { still_queued: [] }
  })
  channel.handle('set_permission_mode', (request) => {
    const mode = typeof request.mode === 'string' ? MODES[request.mode] : undefined
    if (!mode) throw new Error(`Rein has no permission mode "${String(request.mode).slice(0, 40)}"; use ${Object.keys(MODES).join(', ')}.`)
    state.dontAsk = request.mode === 'dontAsk'
    agent.setPermissionMode(mode)
    return { mode: request.mode }
  })
  channel.handle('set_model', (request) => {
    const model = request.model
    if (model !== undefined && model !== null && typeof model !== 'string') throw new Error('set_model needs "model" to be a string, null or absent.')
    agent.setModel({ model: !model || model === 'default' ? initialModel : model })
    return {}
  })
  channel.handle('set_max_thinking_tokens', (request) => {
    const tokens = request.max_thinking_tokens
    if (tokens === undefined) return {}
    if (tokens !== null && (typeof tokens !== 'number' || !Number.isFinite(tokens))) throw new Error('set_max_thinking_tokens needs "max_thinking_tokens" to be a number or null.')
    agent.setModel({ effort: effortForBudget(tokens, initialEffort) })
    return {}
  })
  channel.handle('mcp_status', () => {
    const mcp = opened.mcp as { status?: () => { name: string; state: string; transport: string; tools: string[]; error?: string }[] }
    return {
      mcpServers: (mcp.status?.() ?? []).map((s) => ({
        name: s.name,
        status: mcpStatus(s.state),
        ...(s.error ? { error: s.error } : {}),
        tools: s.tools.map((name) => ({ name })),
        ...(s.transport === 'sdk' ? { config: { type: 'sdk', name: s.name } } : {}),
      })),
    }
  })
  channel.handle('list_models', () => ({ models: modelList() }))
}
