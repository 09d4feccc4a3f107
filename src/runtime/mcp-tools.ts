import type { Settings } from '../config/settings.js'
import type { McpServerConfig } from '../mcp/config.js'
import { loadMcpConfig } from '../mcp/load.js'
import type { McpManager } from '../mcp/manager.js'

/** The part of the MCP manager the agent uses. */
export type McpTools = Pick<McpManager, 'start' | 'tools' | 'onToolsChanged' | 'close' | 'status'>

const noMcp: McpTools = {
  start: async () => {},
  tools: () => [],
  onToolsChanged: () => () => {},
  close: async () => {},
  status: () => [],
}

/**
 * Starts the configured MCP servers and those a client passed. Server notices are startup problems (`report`) until
 * the agent exists, then notices to the user. `untrusted` names the project servers left off for trust.
 */
export async function startMcp(
  /** `strict` (`--strict-mcp-config`): only `extra` servers; `skipProjectFile`: no `.mcp.json` (`--setting-sources`). */
  o: { cwd: string; settings: Settings; home: string; trusted: boolean; extra: McpServerConfig[]; strict?: boolean; skipProjectFile?: boolean },
  report: (message: string) => void,
  agent: () => { notify(level: 'info' | 'warning' | 'error', message: string): void } | undefined,
): Promise<{ mcp: McpTools; untrusted: ReturnType<typeof loadMcpConfig>['untrusted'] }> {
  const config = o.strict
    ? { servers: [], problems: [], untrusted: [] }
    : loadMcpConfig({ cwd: o.cwd, settings: o.settings, home: o.home, trustProject: o.trusted, quietUntrusted: true, skipProjectFile: o.skipProjectFile })
  config.problems.forEach(report)
  const servers = [...config.servers, ...o.extra]
  // The MCP client library is loaded only when a server is configured: it is a large part of start-up time.
  const mcp: McpTools = servers.length
    ? new (await import('../mcp/manager.js')).McpManager(servers, {
        cwd: o.cwd,
        onNotice: (level, message) => {
          const current = agent()
          if (current) current.notify(level, message)
          else report(message)
        },
      })
    : noMcp
  await mcp.start()
  return { mcp, untrusted: config.untrusted }
}
