import { isAbsolute } from 'node:path'
import {
  agent as agentApp,
  PROTOCOL_VERSION,
  RequestError,
  type AgentContext,
  type ClientCapabilities,
  type McpServer,
  type SessionInfo,
  type Stream,
} from '@agentclientprotocol/sdk'
import { parseServerList } from '../mcp/config.js'
import type { McpServerConfig } from '../mcp/config.js'
import type { OpenAcpAgent } from './agent-port.js'
import { modeState } from './modes.js'
import { HeldSessions } from '../frontend/hosting/held-sessions.js'
import { AcpSession } from './session.js'
import type { SnapshotFiles } from '../checkpoints/file-at.js'

export interface AcpServerOptions {
  openAgent: OpenAcpAgent
  /** Stored sessions for `session/list`, newest first; `cwd` filters by working directory. */
  listSessions?: (cwd: string | undefined) => Promise<SessionInfo[]>
  /** Whether a DeepSeek key is configured (environment or credentials file). */
  apiKeyAvailable: () => boolean
  /** The sentence that tells a person how to configure the key. */
  missingKeyMessage: string
  /** Whether the configured model accepts images. */
  acceptsImages: boolean
  version: string
  /** Diagnostics; never stdout, which carries protocol frames only. */
  log: (line: string) => void
  /** Reads a workspace's checkpoint snapshots, so a step's changes reach the editor as diffs. */
  snapshotFiles?: (cwd: string) => SnapshotFiles
}

export interface AcpServer {
  /** Resolves when the client has gone and every session is closed (turns cancelled, logs flushed). */
  readonly closed: Promise<void>
  /** Closes the connection and every session, as a client disconnect does. */
  close(): Promise<void>
}

const AUTH_METHOD = 'deepseek-api-key'

/**
 * Serves ACP on `stream`: one Rein agent per ACP session, all on this one connection. The SDK answers malformed
 * frames (bad JSON, batches, invalid params, unknown methods) with JSON-RPC errors and keeps the connection open.
 */
export function startAcpServer(stream: Stream, options: AcpServerOptions): AcpServer {
  // The sessions this connection holds open (src/frontend/hosting): one open per id, even when loads race.
  const sessions = new HeldSessions<AcpSession>((s) => s.cancel())
  let clientCapabilities: ClientCapabilities = {}
  let client: AgentContext | undefined

  const sessionOptions = () => ({
    images: options.acceptsImages,
    notices: clientCapabilities.session?.notices != null,
    log: options.log,
    snapshotFiles: options.snapshotFiles,
  })

  const requireSession = (sessionId: string): AcpSession => {
    const session = sessions.get(sessionId)
    if (!session) throw RequestError.sessionNotFound(sessionId)
    return session
  }

  const requireKey = (): void => {
    if (!options.apiKeyAvailable()) throw RequestError.authRequired({ env: 'DEEPSEEK_API_KEY' }, options.missingKeyMessage)
  }

  const open = async (
    params: { cwd: string; mcpServers: McpServer[] },
    resume: string | undefined,
  ): Promise<AcpSession> => {
    if (!isAbsolute(params.cwd)) {
      throw RequestError.invalidParams({ cwd: params.cwd }, 'cwd must be an absolute path')
    }
    requireKey()
    const mcpServers = parseMcpServers(params.mcpServers)
    let agent
    try {
      agent = await options.openAgent({ cwd: params.cwd, resume, mcpServers })
    } catch (error) {
      throw new RequestError(-32603, error instanceof Error ? error.message : String(error))
    }
    if (!client) throw RequestError.internalError(undefined, 'the connection is not open')
    return new AcpSession(agent, client, sessionOptions())
  }

  const app = agentApp({ name: 'rein' })
    .onRequest('initialize', ({ params }) => {
      clientCapabilities = params.clientCapabilities ?? {}
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentInfo: { name: 'rein', title: 'Rein', version: options.version },
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: options.acceptsImages, audio: false, embeddedContext: true },
          mcpCapabilities: { http: true, sse: false },
          sessionCapabilities: { ...(options.listSessions ? { list: {} } : {}), close: {} },
        },
        authMethods: [
          {
            id: AUTH_METHOD,
            name: 'DeepSeek API key',
            description: 'Set DEEPSEEK_API_KEY in the environment Rein starts in, or put the key in ~/.rein/credentials.',
          },
        ],
      }
    })
    .onRequest('authenticate', ({ params }) => {
      if (params.methodId !== AUTH_METHOD) {
        throw RequestError.invalidParams({ methodId: params.methodId }, `unknown method; use "${AUTH_METHOD}"`)
      }
      requireKey()
      return {}
    })
    .onRequest('session/new', async ({ params }) => {
      const session = sessions.keep(await open(params, undefined))
      // The client learns the session id from this answer, so the command list follows it.
      setImmediate(() => void session.announceCommands())
      return { sessionId: session.id, modes: modeState(session.agent.permissionMode) }
    })
    .onRequest('session/load', async ({ params }) => {
      const session = await sessions.resume(params.sessionId, () => open(params, params.sessionId))
      await session.replay()
      setImmediate(() => void session.announceCommands())
      return { modes: modeState(session.agent.permissionMode) }
    })
    .onRequest('session/list', async ({ params }) => {
      if (!options.listSessions) throw RequestError.methodNotFound('session/list')
      return { sessions: await options.listSessions(params.cwd ?? undefined) }
    })
    .onRequest('session/prompt', ({ params }) => requireSession(params.sessionId).prompt(params.prompt))
    .onNotification('session/cancel', ({ params }) => {
      sessions.get(params.sessionId)?.cancel()
    })
    .onRequest('session/set_mode', async ({ params }) => {
      await requireSession(params.sessionId).setMode(params.modeId)
      return {}
    })
    .onRequest('session/close', async ({ params }) => {
      requireSession(params.sessionId)
      await sessions.release(params.sessionId, 'acp session/close')
      return {}
    })

  const connection = app.connect(stream)
  client = connection.client

  let closing: Promise<void> | undefined
  const closeAll = (): Promise<void> => {
    closing ??= (async () => {
      // Every turn is cancelled first, so no session waits for another's turn to wind down.
      for (const failure of await sessions.closeAll('acp disconnect')) options.log(`closing a session failed: ${String(failure)}`)
    })()
    return closing
  }

  const closed = connection.closed.then(closeAll, (error: unknown) => {
    options.log(`the connection failed: ${String(error)}`)
    return closeAll()
  })

  return {
    closed,
    async close() {
      connection.close()
      await closed
    },
  }
}

/** The client's MCP servers in Rein's shape; any it cannot use is an invalid-params error naming the fix. */
function parseMcpServers(servers: readonly McpServer[]): McpServerConfig[] {
  const parsed = parseServerList(servers)
  if (parsed.problems.length > 0) throw RequestError.invalidParams({ mcpServers: parsed.problems }, parsed.problems.join(' '))
  return parsed.servers
}
