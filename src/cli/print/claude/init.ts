import { readFileSync } from 'node:fs'
import type { PermissionMode } from '../../../agent/types.js'
import { nameUuid } from './ids.js'
import type { InitLine } from './shapes.js'

const version = (
  JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as { version: string }
).version

/** An MCP server as the init line lists it; `state` is the connection's (src/mcp/connection.ts). */
export interface InitServer {
  name: string
  state: string
  origin?: string
}

/** What the init line reports; every fact comes from the opened agent. */
export interface InitFacts {
  sessionId: string
  /** The log length when the run began: names this init line's uuid. */
  fromSeq: number
  cwd: string
  model: string
  tools: readonly string[]
  servers: readonly InitServer[]
  permissionMode: PermissionMode
  /** Custom commands and skills by the name `/name` runs, without the slash. */
  slashCommands: readonly string[]
  skills: readonly string[]
  /** Subagent types the `task` tool offers, built-in and from agent files. */
  agents: readonly string[]
  plugins: readonly { name: string; path: string; version?: string }[]
  pluginErrors: readonly { plugin: string; type: string; message: string; path?: string }[]
}

/** Rein's permission modes by Claude Code's names. */
const CLAUDE_MODE = {
  default: 'default',
  'accept-edits': 'acceptEdits',
  plan: 'plan',
  bypass: 'bypassPermissions',
} as const satisfies Record<PermissionMode, InitLine['permissionMode']>

/**
 * Claude Code's MCP statuses: `connected`; `failed` (also a server that failed and that Rein will try again later,
 * `restarting`); `pending` (still connecting); `disabled` (closed).
 */
function serverStatus(state: string): string {
  switch (state) {
    case 'connected':
      return state
    case 'failed':
    case 'restarting':
      return 'failed'
    case 'closed':
      return 'disabled'
    default:
      return 'pending'
  }
}

/**
 * The first line of `stream-json`: what this run is (Claude Code's `system`/`init`): the tools by Claude Code's
 * names, the custom commands and skills a prompt may name, the subagent types, and the plugins with what failed to
 * load (`plugin_errors`, present only when something did). Rein has no output styles, so the style is `default`;
 * the key is DeepSeek's, which Claude Code's `apiKeySource` cannot name, so it says `none`.
 */
export function initLine(facts: InitFacts): InitLine {
  return {
    type: 'system',
    subtype: 'init',
    apiKeySource: 'none',
    claude_code_version: version,
    cwd: facts.cwd,
    tools: [...facts.tools],
    mcp_servers: facts.servers.map((s) => ({ name: s.name, status: serverStatus(s.state), ...(s.origin ? { source: s.origin } : {}) })),
    model: facts.model,
    permissionMode: CLAUDE_MODE[facts.permissionMode],
    slash_commands: [...facts.slashCommands],
    output_style: 'default',
    skills: [...facts.skills],
    agents: [...facts.agents],
    plugins: facts.plugins.map((p) => ({ ...p })),
    ...(facts.pluginErrors.length ? { plugin_errors: facts.pluginErrors.map((e) => ({ ...e })) } : {}),
    session_id: facts.sessionId,
    uuid: nameUuid(`${facts.sessionId}#${facts.fromSeq}#init`),
    rein: { version, permission_mode: facts.permissionMode },
  }
}
