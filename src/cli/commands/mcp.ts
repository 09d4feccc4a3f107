import type { Command } from 'commander'
import { loadSettings } from '../../config/settings.js'
import { displayPath } from '../../hooks/config-file.js'
import { loadMcpConfig, McpManager, readProjectMcpFile, trustProjectMcp, type McpServerStatus, type UntrustedServer } from '../../mcp/index.js'
import { workspaceTrust } from '../../runtime/workspace-trust.js'
import { reinHome } from '../../store/home.js'
import { fail } from '../fail.js'
import { counted } from '../../text/count.js'

export interface McpListOptions {
  cwd: string
  home: string
  json?: boolean
  trustProject?: boolean
  /** How long each server may take to start and list its tools, in milliseconds. */
  timeoutMs?: number
  write(text: string): void
  writeError(text: string): void
}

function describeServer(status: McpServerStatus, descriptions: Map<string, string>): string {
  const where = [status.transport, status.origin].filter(Boolean).join(', ')
  const head =
    status.state === 'connected'
      ? `${status.name} (${where}): connected, ${counted(status.tools.length, 'tool')}`
      : `${status.name} (${where}): ${status.state}${status.error ? ` — ${status.error}` : ''}`
  const width = Math.max(0, ...status.tools.map((tool) => tool.length))
  const tools = status.tools.map((tool) => {
    const description = (descriptions.get(tool) ?? '').split('\n')[0]
    return `  ${tool.padEnd(width)}  ${description}`.trimEnd()
  })
  return [head, ...tools].join('\n')
}

/** Project servers that did not start for want of trust, and the command that trusts them. */
function describeUntrusted(servers: readonly UntrustedServer[], dir: string, cwd: string): string {
  const lines = servers.map(
    (server) => `${server.name} (project, ${displayPath(server.file, cwd)}): untrusted${server.status === 'changed' ? ', changed since it was trusted' : ''}, not started`,
  )
  return [...lines, `Run \`rein trust ${dir}\` to trust this workspace (or \`rein mcp trust\` for its servers alone).`].join('\n')
}

/**
 * `rein mcp list`: connects every configured server once (no restarts), prints each with its state and tools, and
 * closes them. Project servers that are not trusted are listed as untrusted, with the command that trusts them;
 * problems (malformed entries) and failure reports go to stderr. Returns the exit code:
 * 0 even when a server failed, since showing that is the command's job.
 */
export async function listMcpServers(options: McpListOptions): Promise<number> {
  const trust = workspaceTrust({ cwd: options.cwd, home: options.home, once: options.trustProject })
  const settings = loadSettings(options.cwd, options.home, { workspaceTrusted: trust.trusted })
  const { servers, problems, untrusted } = loadMcpConfig({
    cwd: options.cwd,
    settings,
    home: options.home,
    trustProject: trust.trusted,
    quietUntrusted: true,
  })
  for (const problem of problems) options.writeError(`rein: ${problem}\n`)
  const untrustedRows = untrusted.map((server) => ({ name: server.name, state: 'untrusted' as const, status: server.status, file: server.file }))
  if (servers.length === 0) {
    if (options.json) options.write(JSON.stringify(untrustedRows, null, 2) + '\n')
    else if (untrusted.length) options.write(describeUntrusted(untrusted, trust.dir, options.cwd) + '\n')
    else options.write('No MCP servers are configured. Add them to .mcp.json or to "mcpServers" in Rein\'s settings.\n')
    return 0
  }
  const manager = new McpManager(servers, {
    cwd: options.cwd,
    connectTimeoutMs: options.timeoutMs ?? 30_000,
    restart: { maxAttempts: 0 },
    onNotice: (_level, message) => options.writeError(`rein: ${message}\n`),
  })
  try {
    await manager.start()
    const status = manager.status()
    if (options.json) {
      options.write(JSON.stringify([...status, ...untrustedRows], null, 2) + '\n')
    } else {
      const descriptions = new Map(manager.tools().map((tool) => [tool.name, tool.description]))
      const lines = status.map((server) => describeServer(server, descriptions))
      if (untrusted.length) lines.push(describeUntrusted(untrusted, trust.dir, options.cwd))
      options.write(lines.join('\n') + '\n')
    }
  } finally {
    await manager.close()
  }
  return 0
}

/** `rein mcp trust`: trusts every server the project now defines (`.mcp.json`, `.rein/settings.json`). */
export function trustMcpServers(options: { cwd: string; home: string; settings?: { mcpServers?: unknown }; write(text: string): void }): number {
  const names = trustProjectMcp(options)
  options.write(
    names.length === 0
      ? `${readProjectMcpFile(options.cwd).path} defines no servers; nothing was trusted.\n`
      : `Trusted ${counted(names.length, 'project MCP server')} in ${options.cwd}: ${names.join(', ')}.\n`,
  )
  return 0
}

/** `rein mcp list` and `rein mcp trust`. */
export function registerMcpCommand(program: Command): void {
  const mcp = program.command('mcp').description('show and trust the MCP servers Rein connects')
  mcp
    .command('list')
    .description('connect each configured MCP server and show its status and tools')
    .option('--json', 'print the status as JSON')
    .option('--trust-project', "trust this workspace's servers for this command only")
    .option('--timeout <seconds>', 'how long each server may take to start', '30')
    .action(async (flags: { json?: boolean; trustProject?: boolean; timeout: string }) => {
      try {
        const seconds = Number(flags.timeout)
        if (!Number.isFinite(seconds) || seconds <= 0) throw new Error(`--timeout must be a number of seconds above 0, not "${flags.timeout}".`)
        process.exitCode = await listMcpServers({
          cwd: process.cwd(),
          home: reinHome(),
          json: flags.json,
          trustProject: flags.trustProject,
          timeoutMs: seconds * 1000,
          write: (text) => process.stdout.write(text),
          writeError: (text) => process.stderr.write(text),
        })
      } catch (error) {
        fail(error)
      }
    })
  mcp
    .command('trust')
    .description("trust the servers defined in this project's .mcp.json (until their definitions change)")
    .action(() => {
      try {
        const cwd = process.cwd()
        const home = reinHome()
        process.exitCode = trustMcpServers({ cwd, home, settings: loadSettings(cwd, home), write: (text) => process.stdout.write(text) })
      } catch (error) {
        fail(error)
      }
    })
}
