/**
 * The MCP client: servers from settings, the project's `.mcp.json` (trusted) and ACP, connected through the
 * official SDK; their tools become ordinary tools named `mcp__<server>__<tool>`.
 */
export { type McpServerConfig, type ParsedServers, parseServerList, parseServerMap, expandVars } from './config.js'
export { loadMcpConfig, trustProjectMcp, readProjectMcpFile, type LoadMcpConfigOptions, type UntrustedServer } from './load.js'
export { McpManager, type McpManagerOptions, type McpServerStatus, type McpAgentTool } from './manager.js'
export { type ServerState, type NoticeLevel, type RestartPolicy } from './connection.js'
export { mcpToolName, serverPrefix, TOOL_NAME } from './names.js'
export { trustFilePath } from './trust.js'
