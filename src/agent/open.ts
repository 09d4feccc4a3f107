import { join, resolve } from 'node:path'
import type { Effort, ModelAdapter, Wire } from '../llm/adapter.js'
import { modelInfo, DEFAULT_MODEL, retiredModel, retiredSentence, type ModelInfo, type ModelOverride } from '../llm/catalog.js'
import { modelOverridesOf } from '../llm/model-settings.js'
import { createAdapter } from '../llm/create.js'
import { resolveApiKey } from '../llm/credentials.js'
import { loadSettings, type Settings } from '../config/settings.js'
import { systemPrompt } from '../context/system-prompt.js'
import { workspaceInstructions } from '../context/workspace.js'
import { runtimeContext } from '../context/runtime.js'
import { fileChanges } from '../context/file-changes.js'
import { loadHooks } from '../hooks/index.js'
import type { McpManager } from '../mcp/manager.js'
import type { McpServerConfig } from '../mcp/config.js'
import { loadMcpConfig } from '../mcp/load.js'
import { createPermissionPolicy, permissionNeededMessage } from '../permissions/policy.js'
import { forkSession } from '../session/fork.js'
import { Session } from '../session/session.js'
import { reinHome } from '../store/home.js'
import { listSessions, resolveSessionId } from '../store/listing.js'
import { openStore } from '../store/open-store.js'
import { createCommitGuard } from '../trust/commit-guard.js'
import { createRedactor, secretValues } from '../trust/secrets.js'
import { ignoredGrants, untrustedNotice, workspaceTrust } from '../trust/workspace.js'
import { builtinTools, createToolState, disposeToolState, toolSchemas } from '../tools/registry.js'
import { setModelVision } from '../tools/read-image.js'
import { Compactor, type CompactionSettings } from '../compaction/compactor.js'
import { Agent } from './agent.js'
import type { Extension, SessionStartSource, ToolCallInfo } from './extensions.js'
import type { AgentApi, PermissionMode } from './types.js'

export interface OpenAgentOptions {
  cwd: string
  /** `$REIN_HOME`; defaults to the environment's, else ~/.rein. */
  home?: string
  env?: NodeJS.ProcessEnv
  /** The session store (`--store`): `jsonl` or a postgres:// URL; else REIN_STORE, settings, JSONL. */
  store?: string
  /** The id of a new session (`--session-id`; rein batch names its tasks' sessions). */
  sessionId?: string
  resume?: string
  /** Resume the latest session of `cwd`. */
  continueLatest?: boolean
  fork?: { id: string; seq?: number }
  model?: string
  effort?: Effort
  permissionMode?: PermissionMode
  /** Extra allow rules for this run (`--allow`). */
  allow?: string[]
  /** Trust the workspace for this run only (`--trust-project`), recording nothing. */
  trustProject?: boolean
  /** MCP servers passed by a client (ACP `session/new`), in addition to the configured ones. */
  mcpServers?: McpServerConfig[]
  maxSteps?: number
  extensions?: Extension<AgentApi>[]
  /** Tests and the demo may supply the adapter. */
  adapter?: ModelAdapter
  /** Told of each call refused because it needed approval and nothing could ask, with a rule that would allow it. */
  onPermissionRefused?: (call: ToolCallInfo, rule: string | undefined) => void
  /** Called with problems found while loading hooks or servers (one sentence each). */
  onProblem?: (message: string) => void
}

/** The part of the MCP manager the agent uses. */
export type McpTools = Pick<McpManager, 'start' | 'tools' | 'onToolsChanged' | 'close'>

const noMcp: McpTools = {
  start: async () => {},
  tools: () => [],
  onToolsChanged: () => () => {},
  close: async () => {},
}

/** What `openAgent` hands back besides the agent: facts front ends show. */
export interface OpenedAgent {
  agent: Agent
  model: ModelInfo
  settings: Settings
  mcp: McpTools
  problems: string[]
}

/** Opens (or resumes, or forks) a session and wires every part of Rein around it. */
export async function openAgentWithContext(options: OpenAgentOptions): Promise<OpenedAgent> {
  const env = options.env ?? process.env
  const home = options.home ?? reinHome(env)
  const cwd = resolve(options.cwd)
  const trust = workspaceTrust({ cwd, home, once: options.trustProject })
  const settings = loadSettings(cwd, home, { workspaceTrusted: trust.trusted })
  refuseRetired(options.model ?? settings.model, settings)
  const store = await openStore({ home, env, flag: options.store })
  const problems: string[] = []
  const report = (message: string): void => {
    problems.push(message)
    options.onProblem?.(message)
  }

  let session: Session
  let start: SessionStartSource = 'startup'
  if (options.resume) {
    session = await Session.load(store, await resolveSessionId(store, options.resume, cwd))
    start = 'resume'
  } else if (options.continueLatest) {
    const latest = (await listSessions(store, cwd))[0]
    if (!latest) throw new Error(`There is no earlier session in ${cwd} to continue; start one without --continue.`)
    session = await Session.load(store, latest.id)
    start = 'resume'
  } else if (options.fork) {
    session = await forkSession(store, await resolveSessionId(store, options.fork.id, cwd), options.fork.seq)
    start = 'fork'
  } else {
    session = await Session.create(store, { cwd, ...(options.sessionId ? { id: options.sessionId } : {}) })
  }
  session.setCommitGuard(createCommitGuard(createRedactor(secretValues({ env, home, secretEnv: settings.secretEnv }))))

  const modelId = options.model ?? settings.model ?? previousModel(session) ?? DEFAULT_MODEL
  refuseRetired(modelId, settings)
  const info = modelInfo(modelId, modelOverrides(settings))
  const wire: Wire = (settings.wire as Wire | undefined) ?? info.wire ?? 'chat'
  const adapter =
    options.adapter ??
    createAdapter({
      wire,
      baseUrl: env.DEEPSEEK_BASE_URL,
      anthropicBaseUrl: env.DEEPSEEK_ANTHROPIC_BASE_URL,
      apiKey: () => resolveApiKey(env, home),
      models: modelOverrides(settings),
    })

  const mcpConfig = loadMcpConfig({ cwd, settings, home, trustProject: trust.trusted, quietUntrusted: true })
  mcpConfig.problems.forEach(report)
  // Until the agent exists, server notices are startup problems; afterwards they reach the user as notices.
  let notify: ((level: 'info' | 'warning' | 'error', message: string) => void) | undefined
  const servers = [...mcpConfig.servers, ...(options.mcpServers ?? [])]
  // The MCP client library is loaded only when a server is configured: it is a large part of start-up time.
  const mcp: McpTools = servers.length
    ? new (await import('../mcp/manager.js')).McpManager(servers, {
        cwd,
        onNotice: (level, message) => (notify ? notify(level, message) : report(message)),
      })
    : noMcp
  await mcp.start()

  const hooks = loadHooks({
    cwd,
    home,
    env,
    workspaceTrusted: trust.trusted,
    secretEnv: settings.secretEnv,
    maxStopContinuations: positive(settings.stopHooks?.maxContinuations),
    maxIdenticalStopReasons: positive(settings.stopHooks?.maxIdenticalReasons),
  })
  hooks.problems.forEach(report)
  const ignored = ignoredGrants(trust, { hookHashes: hooks.untrusted.map((h) => h.hash), servers: mcpConfig.untrusted })
  const trustNotice = untrustedNotice(trust, ignored)
  if (trustNotice) report(trustNotice)

  let mode: PermissionMode = options.permissionMode ?? settings.permissions?.defaultMode ?? 'default'
  const getMode = (): PermissionMode => agentRef?.permissionMode ?? mode
  let agentRef: Agent | undefined
  const policy = createPermissionPolicy({
    cwd,
    settings,
    getMode,
    extraAllow: options.allow ?? [],
    sessionAllow: [],
    reinHome: home,
    workspaceTrusted: trust.trusted,
  })

  const toolState = createToolState({
    spillDir: join(home, 'spill', session.id),
    secretEnv: settings.secretEnv ?? [],
    allowPrivateNetwork: settings.webFetch?.allowPrivate === true,
  })
  policy.guardTools(toolState)
  const tools = () => [...builtinTools(), ...mcp.tools()]
  setModelVision(toolState, () => {
    const current = agentRef?.config.model ?? modelId
    return { model: current, images: modelInfo(current, modelOverrides(settings)).images }
  })

  let agentRefForWindow: Agent | undefined
  const compaction = (settings.compaction ?? {}) as Partial<CompactionSettings>
  const compactor = new Compactor({
    session,
    adapter,
    contextWindow: () => {
      const current = agentRefForWindow?.config.model ?? modelId
      return modelInfo(current, modelOverrides(settings)).contextWindow
    },
    settings: { ...compaction, ...perModelCompaction(settings, modelId) },
    preCompact: (trigger, focus) => hooks.runPreCompact(trigger === 'manual' ? 'manual' : 'auto', focus),
  })

  const agent = await Agent.create({
    session,
    adapter,
    tools: tools(),
    schemas: toolSchemas,
    system: systemPrompt({ model: modelId, cwd }),
    config: { model: modelId, effort: options.effort ?? settings.effort ?? 'high' },
    toolState,
    permissionMode: mode,
    start,
    maxSteps: options.maxSteps,
    compactor,
    onPermissionAsked: (request) => void hooks.permissionAsked(request),
    suggestRule: (call) => policy.suggestedRule(call),
    allowAlways: (rule) => policy.allowForSession(rule),
    permissionNeeded: (call) => {
      options.onPermissionRefused?.(call, policy.suggestedRule(call))
      return permissionNeededMessage(call)
    },
    extensions: [
      hooks.extension,
      workspaceInstructions({ home }),
      runtimeContext(),
      fileChanges(toolState.files),
      policy,
      ...(options.extensions ?? []),
    ],
    onClose: async () => {
      await disposeToolState(toolState)
      await mcp.close()
    },
  })
  agentRef = agent
  agentRefForWindow = agent
  notify = (level, message) => agent.notify(level, message)
  mode = agent.permissionMode
  mcp.onToolsChanged(() => agent.setTools(tools()))
  return { agent, model: info, settings, mcp, problems }
}

export async function openAgent(options: OpenAgentOptions): Promise<Agent> {
  return (await openAgentWithContext(options)).agent
}

/** A setting that must be a whole number of at least 1, or absent (the default applies). */
function positive(value: unknown): number | undefined {
  if (value === undefined) return undefined
  if (typeof value === 'number' && Number.isInteger(value) && value >= 1) return value
  throw new Error(`The setting stopHooks limits must be whole numbers of at least 1, not ${JSON.stringify(value)}; fix settings.json.`)
}

/** The user's catalog additions and overrides (`models` in settings). */
export function modelOverrides(settings: Settings): Record<string, ModelOverride> {
  return modelOverridesOf(settings.models)
}

/** A retired model id fails before any session is touched or request sent, with the replacement named. */
function refuseRetired(model: string | undefined, settings: Settings): void {
  const retired = model === undefined ? undefined : retiredModel(model, modelOverrides(settings))
  if (retired) throw new Error(retiredSentence(retired))
}

/** `models.<id>.compactAt` in settings sets the compaction ratio for one model. */
function perModelCompaction(settings: Settings, model: string): Partial<CompactionSettings> {
  const entry = (settings.models as Record<string, { compactAt?: unknown }> | undefined)?.[model]
  return typeof entry?.compactAt === 'number' ? { ratio: entry.compactAt } : {}
}

/** A resumed session keeps the model it ran with unless told otherwise. */
function previousModel(session: Session): string | undefined {
  return session.last('request/header')?.data.config.model
}
