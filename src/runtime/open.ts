import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import { Agent } from '../agent/agent.js'
import { spendBudget, type SpendLimit } from '../agent/budget.js'
import type { Extension, ToolCallInfo } from '../agent/extensions.js'
import type { PermissionMode } from '../agent/types.js'
import { Checkpoints } from '../checkpoints/engine.js'
import { checkpointExtension } from '../checkpoints/extension.js'
import { startRetention } from '../checkpoints/retention-schedule.js'
import { sessionHistory } from '../checkpoints/rewind-history.js'
import { interruptedNotice, interruptedRestore } from '../checkpoints/undo-points.js'
import { checkpointConfig } from '../checkpoints/settings.js'
import { Compactor } from '../compaction/compactor.js'
import { loadingRefusal } from '../config/read-guard.js'
import { subagentLimits } from '../config/limits.js'
import { loadSettingsReport, mergeSettings, type SettingSource, type Settings } from '../config/settings.js'
import { fileChanges } from '../context/file-changes.js'
import { runtimeContext } from '../context/runtime.js'
import { systemPrompt } from '../context/system-prompt.js'
import { workspaceInstructions } from '../context/workspace.js'
import { loadHooks } from '../hooks/index.js'
import type { Effort, ModelAdapter } from '../llm/adapter.js'
import { costsMore, modelInfo, type ModelInfo } from '../llm/catalog.js'
import { createAdapter } from '../llm/create.js'
import { userIdSettingOf } from '../llm/model-settings.js'
import { resolveApiKey } from '../llm/credentials.js'
import type { McpServerConfig } from '../mcp/config.js'
import { createPermissionPolicy, permissionNeededMessage } from '../permissions/policy.js'
import { reinHome } from '../store/home.js'
import { openStore } from './open-store.js'
import { builtinTools, createToolState, disposeToolState, toolSchemas } from '../tools/registry.js'
import { setModelVision } from '../tools/read-image.js'
import { createCommitGuard } from '../trust/commit-guard.js'
import { createRedactor, secretValues } from '../trust/secrets.js'
import { ignoredGrants, untrustedNotice } from '../trust/workspace.js'
import { workspaceTrust } from './workspace-trust.js'
import { userShell } from './user-shell.js'
import type { SubagentHost } from '../subagents/host.js'
import type { AgentType } from '../subagents/agent-types.js'
import { attachSubagents } from '../subagents/wiring.js'
import { repairAcrossChildren } from '../subagents/repair.js'
import { startMcp, type McpTools } from './mcp-tools.js'
import { chooseModel, compactionSettings, modelOverrides, refuseRetired } from './model-choice.js'
import { openSession, type SessionChoice } from './open-session.js'
import { openSessionSandbox } from './sandbox.js'
import { permissionUpdater } from './permission-updates.js'
import { ToolGrants } from '../prompt-files/tool-grants.js'
import { workflowExtensions } from '../prompt-files/wiring.js'
import { isBuiltinCommand } from '../slash/builtins.js'
import { PROMPT_LISTING_TOKEN_BUDGET } from '../prompt-files/listing-budget.js'
import { agentListing } from '../subagents/task-tool.js'
import type { PlanApproval } from '../plan/extension.js'
import type { PluginSet } from '../plugins/plugin.js'
import { pluginHookFiles, pluginMcpServers, promptRoots } from '../plugins/roots.js'
import { resolvePlugins } from '../plugins/sources.js'
import { sessionTitles } from '../titles/session-titles.js'

export { modelOverrides } from './model-choice.js'
export type { McpTools } from './mcp-tools.js'

export interface OpenAgentOptions extends SessionChoice {
  cwd: string
  /** `$REIN_HOME`; defaults to the environment's, else ~/.rein. */
  home?: string
  env?: NodeJS.ProcessEnv
  /** The session store (`--store`): `jsonl` or a postgres:// URL; else REIN_STORE, settings, JSONL. */
  store?: string
  model?: string
  effort?: Effort
  /** DeepSeek's `user_id` for this agent's requests (a fleet's task or tenant), over `userId` in settings. */
  userId?: string
  permissionMode?: PermissionMode
  /** Extra allow rules for this run (`--allow`). */
  allow?: string[]
  /** Trust the workspace for this run only (`--trust-project`), recording nothing. */
  trustProject?: boolean
  /** MCP servers passed by a client (ACP `session/new`), in addition to the configured ones. */
  mcpServers?: McpServerConfig[]
  maxSteps?: number
  /** A spend cap for this run (`--max-budget-usd`, a batch task's budget): src/agent/budget.ts. */
  budget?: SpendLimit
  extensions?: Extension[]
  /** Tests and the demo may supply the adapter. */
  adapter?: ModelAdapter
  /** Told of each call refused because it needed approval and nothing could ask, with a rule that would allow it. */
  onPermissionRefused?: (call: ToolCallInfo, rule: string | undefined) => void
  /** Approve every plan `exit_plan_mode` presents, continuing in this mode (`rein -p --approve-plan`). */
  approvePlan?: PlanApproval
  /** Called with problems found while loading hooks or servers (one sentence each). */
  onProblem?: (message: string) => void
  /** `--sandbox` (true) or `--no-sandbox` (false), over the `sandbox.enabled` of every settings file. */
  sandbox?: boolean
  /** Settings given on the command line (`--settings`, `--disallowedTools`, `--add-dir`), read after every settings file. */
  settingsOverlay?: Settings
  /** `--system-prompt` replaces Rein's system prompt, `--append-system-prompt` adds after it. */
  systemPrompt?: { replace?: string; append?: string }
  /** `--tools`: the built-in tools (Rein's names, `task` included) the model may use; MCP tools are kept. */
  builtinTools?: string[]
  /** `--plugin-dir`: plugin directories loaded besides the installed and settings-enabled plugins (docs/claude-code.md). */
  pluginDirs?: string[]
  /** `--agents`: subagent types for this run, over those of the same name from files. */
  agentTypes?: AgentType[]
  /** `--setting-sources`: the settings layers read (settings, hook files, `.mcp.json` with `project`); all when absent. */
  settingSources?: readonly SettingSource[]
  /** `--strict-mcp-config`: only `mcpServers` given here, none from settings or `.mcp.json`. */
  strictMcpConfig?: boolean
  /** Hooks from `--settings`: the user's own, read after every hook file. */
  flagHooks?: { hooks: unknown; from: string }
  /**
   * false: never ask the model for a session title, whatever `sessionTitles` says (print mode: a script neither pays
   * for a title nor waits for one). Otherwise the setting decides (docs/configuration.md, "Session titles").
   */
  modelTitles?: boolean
}

/** What `openAgent` hands back besides the agent: facts front ends show. */
export interface OpenedAgent {
  agent: Agent
  model: ModelInfo
  settings: Settings
  mcp: McpTools
  problems: string[]
  /** Runs this agent's subagents; `running` holds the live children by session id (RPC steers one). */
  subagents: SubagentHost
  /** The plugins loaded, and one sentence for each that was not (`system/init`'s `plugins` and `plugin_errors`). */
  plugins: PluginSet
  /** Applies a permission answer's `updatedPermissions` (Claude Code's `PermissionUpdate[]`); `by` names who answered. */
  applyPermissionUpdates: (raw: unknown, by: string) => void
}

/**
 * The composition root: opens (or resumes, or forks) a session and wires every part of Rein around an agent —
 * settings, trust, the model adapter, MCP servers, hooks, context producers, the permission policy and compaction.
 * Extensions run in this order: hooks, workspace instructions, runtime context, file changes, permissions,
 * compaction, checkpoints, the user shell, session titles, then the caller's.
 */
export async function openAgentWithContext(options: OpenAgentOptions): Promise<OpenedAgent> {
  const env = options.env ?? process.env
  const home = options.home ?? reinHome(env)
  const cwd = resolve(options.cwd)
  const trust = workspaceTrust({ cwd, home, once: options.trustProject })
  const loaded = loadSettingsReport(cwd, home, { workspaceTrusted: trust.trusted, ...(options.settingSources ? { sources: options.settingSources } : {}) })
  const { ignoredLimits } = loaded
  const settings = options.settingsOverlay ? (mergeSettings(loaded.settings, options.settingsOverlay) as Settings) : loaded.settings
  refuseRetired(options.model ?? settings.model, settings)
  const problems: string[] = []
  const report = (message: string): void => {
    problems.push(message)
    options.onProblem?.(message)
  }

  const store = await openStore({ home, env, flag: options.store })
  const { session, start } = await openSession(store, cwd, options, { amendRepair: repairAcrossChildren(store, modelOverrides(settings)) })
  const commitGuard = createCommitGuard(createRedactor(secretValues({ env, home, secretEnv: settings.secretEnv, stores: [options.store, storeSetting(settings)] })))
  session.setCommitGuard(commitGuard)

  const model = chooseModel(options.model, settings, session)
  const adapter =
    options.adapter ??
    createAdapter({
      wire: model.wire,
      baseUrl: env.DEEPSEEK_BASE_URL,
      anthropicBaseUrl: env.DEEPSEEK_ANTHROPIC_BASE_URL,
      apiKey: () => resolveApiKey(env, home),
      models: modelOverrides(settings),
      userId: userIdSettingOf(settings),
    })

  // Plugins (src/plugins): their commands, agents, skills, hooks and MCP servers join the loaders' own.
  const plugins = resolvePlugins({ cwd, home, pluginDirs: options.pluginDirs, workspaceTrusted: trust.trusted })
  plugins.errors.filter((e) => !plugins.untrusted.some((u) => u.key === e.plugin)).forEach((e) => report(e.message))
  const roots = promptRoots(plugins)
  const pluginServers = pluginMcpServers(plugins, env)
  pluginServers.problems.forEach(report)

  // Until the agent exists, server notices are startup problems; afterwards they reach the user as notices.
  let agentRef: Agent | undefined
  const mcpChoice = { strict: options.strictMcpConfig === true, skipProjectFile: options.settingSources !== undefined && !options.settingSources.includes('project') }
  // --strict-mcp-config: only the servers the command line and the SDK program name, plugins' too left out.
  const extraServers = [...(mcpChoice.strict ? [] : pluginServers.servers), ...(options.mcpServers ?? [])]
  const { mcp, untrusted: untrustedServers } = await startMcp({ cwd, settings, home, trusted: trust.trusted, extra: extraServers, ...mcpChoice }, report, () => agentRef)

  // Read only while a turn runs: the policy and the agent exist by then.
  const applyPermissionUpdates = permissionUpdater({
    cwd,
    home,
    allowForSession: (rule) => policy.allowForSession(rule),
    setMode: (mode) => agentRef?.setPermissionMode(mode),
    warn: (message) => (agentRef ? agentRef.notify('warning', message) : report(message)),
  })
  const hookOptions = {
    applyPermissionUpdates,
    cwd,
    home,
    env,
    workspaceTrusted: trust.trusted,
    secretEnv: settings.secretEnv,
    maxStopContinuations: settings.stopHooks?.maxContinuations,
    maxIdenticalStopReasons: settings.stopHooks?.maxIdenticalReasons,
    extra: pluginHookFiles(plugins),
    ...(options.settingSources ? { sources: options.settingSources } : {}),
    ...(options.flagHooks ? { flagHooks: options.flagHooks } : {}),
  }
  const hooks = loadHooks(hookOptions)
  hooks.problems.forEach(report)
  const ignored = ignoredGrants(trust, { hookHashes: hooks.untrusted.map((h) => h.hash), servers: untrustedServers, limits: ignoredLimits })
  const trustNotice = untrustedNotice(trust, ignored)
  if (trustNotice) report(trustNotice)

  const mode: PermissionMode = options.permissionMode ?? settings.permissions?.defaultMode ?? 'default'
  const currentModel = (): string => agentRef?.config.model ?? model.id
  // Skills and custom commands: allow rules that hold while one is active (src/prompt-files).
  const grants = new ToolGrants()
  // The sandbox (docs/sandbox.md): bash calls run under bubblewrap and need no prompt outside plan mode.
  const sandbox = await openSessionSandbox({ cwd, home, env, settings, report, ...(options.sandbox !== undefined ? { flag: options.sandbox } : {}) })
  const policy = createPermissionPolicy({
    ...(sandbox ? { sandbox } : {}),
    grantedAllow: () => grants.rules(),
    cwd,
    settings,
    getMode: () => agentRef?.permissionMode ?? mode,
    extraAllow: options.allow ?? [],
    sessionAllow: [],
    reinHome: home,
    workspaceTrusted: trust.trusted,
  })

  const toolState = createToolState({
    spillDir: join(home, 'spill', session.id),
    secretEnv: settings.secretEnv ?? [],
    passEnv: settings.passEnv ?? [],
    allowPrivateNetwork: settings.webFetch?.allowPrivate === true,
  })
  policy.guardTools(toolState)
  const workflow = workflowExtensions({
    cwd,
    home,
    env,
    trusted: trust.trusted,
    policy,
    grants,
    toolState,
    report,
    secretEnv: settings.secretEnv,
    knownModel: (id) => id in modelOverrides(settings),
    dearer: (id, than) => costsMore(modelInfo(id, modelOverrides(settings)), modelInfo(than, modelOverrides(settings))),
    approvePlan: options.approvePlan,
    isBuiltin: isBuiltinCommand,
    // The skills take what the agent types' listing in the task tool leaves of the prompt files' one budget.
    skillsListingBudget: () => PROMPT_LISTING_TOKEN_BUDGET - agentListingTokens,
    roots,
  })

  // Subagents (docs/subagents.md): the `task` tool and the host that runs children beside this agent.
  const subagents = attachSubagents({
    cwd,
    home,
    userHome: env.HOME ?? homedir(),
    settings,
    limits: subagentLimits(settings),
    store,
    adapter,
    toolState,
    policy,
    commitGuard,
    // Read only while a tool runs, so the agent exists by then.
    parent: () => agentRef as Agent,
    hooks: { child: () => loadHooks(hookOptions).extension, start: hooks.runSubagentStart, stop: hooks.runSubagentStop },
    modelOverrides: modelOverrides(settings),
    maxSteps: options.maxSteps,
    trusted: trust.trusted,
    notify: (message) => agentRef?.notify('warning', message),
    ...(options.agentTypes ? { extraTypes: options.agentTypes } : {}),
    roots,
  })
  subagents.problems.forEach(report)
  const agentListingTokens = agentListing([...subagents.host.types.values()]).tokens

  // A resumed subagent session goes on as its agent type: the same system prompt and tools, so its prefix stays cached.
  const asChild = subagents.resumedChild(session.header)
  const kept = options.builtinTools ? new Set(options.builtinTools) : undefined
  const allTools = () => [...[...builtinTools(), subagents.tool].filter((t) => !kept || kept.has(t.name)), ...mcp.tools()]
  const tools = () => (asChild ? asChild.tools(allTools()) : allTools())
  setModelVision(toolState, () => ({ model: currentModel(), images: modelInfo(currentModel(), modelOverrides(settings)).images }))

  const compactor = new Compactor({
    session,
    adapter,
    contextWindow: () => modelInfo(currentModel(), modelOverrides(settings)).contextWindow,
    settings: compactionSettings(settings, model.id),
    preCompact: (trigger, focus) => hooks.runPreCompact(trigger === 'manual' ? 'manual' : 'auto', focus),
  })

  const checkpoints = checkpointConfig(settings)
  // A rewind or undo that was interrupted part way (docs/checkpoints.md): said once on open, with how to finish or undo it.
  const interrupted = checkpoints.enabled ? interruptedRestore(session) : undefined
  if (interrupted) report(interruptedNotice(session.id, interrupted.data))
  const agent = await Agent.create({
    session,
    adapter,
    tools: tools(),
    schemas: toolSchemas,
    system: asChild?.system ?? withPromptFlags(systemPrompt({ model: model.id, cwd }), options.systemPrompt),
    config: { model: model.id, effort: options.effort ?? settings.effort ?? 'high', ...(options.userId !== undefined ? { userId: options.userId } : {}) },
    toolState,
    permissionMode: mode,
    start,
    maxSteps: options.maxSteps,
    stepBudget: subagents.budget.parent,
    ...(options.budget ? { budget: spendBudget(options.budget) } : {}),
    permissionNeeded: (call) => permissionNeededMessage(call),
    extensions: [
      ...workflow.first,
      hooks.extension,
      // Instruction files pass the read gate with this agent's read guard (src/fs/read-gate.ts).
      workspaceInstructions({ home, refuses: loadingRefusal(toolState, { cwd, reinHome: home, userHome: env.HOME ?? homedir() }) }),
      runtimeContext(),
      fileChanges(toolState.files),
      ...workflow.after,
      policy,
      compactor,
      // Checkpoints (docs/checkpoints.md): a snapshot of the workspace before each step's first mutating tool.
      // Rewind reads the whole log and forks it through the store (the `rewind` and `rewind-undo` commands).
      ...(checkpoints.enabled
        ? [
            checkpointExtension({
              engine: new Checkpoints({ home, cwd, env, secretEnv: settings.secretEnv, sessionId: session.id, maxFileBytes: checkpoints.maxFileBytes }),
              history: sessionHistory(store, session),
            }),
          ]
        : []),
      // `!cmd` typed by the user runs with the bash tool's runner and sandbox (src/frontend/shell-command.ts).
      userShell(toolState),
      // Model-made titles (src/titles), opt-in: one request after the first turn, never for a subagent's session.
      ...(settings.sessionTitles === 'model' && options.modelTitles !== false && !session.header.subagent ? [sessionTitles({ session, adapter })] : []),
      ...(options.onPermissionRefused ? [refusals(options.onPermissionRefused)] : []),
      ...(options.extensions ?? []),
    ],
    onClose: async () => {
      await disposeToolState(toolState)
      await mcp.close()
      await sandbox?.close()
    },
  })
  agentRef = agent
  mcp.onToolsChanged(() => agent.setTools(tools()))
  // Retention (docs/checkpoints.md): at most once a day per workspace, in the background; never awaited.
  if (checkpoints.enabled) startRetention({ home, cwd, env, secretEnv: settings.secretEnv, rules: checkpoints, keep: session.id })
  return { agent, model: model.info, settings, mcp, problems, subagents: subagents.host, plugins, applyPermissionUpdates }
}

export async function openAgent(options: OpenAgentOptions): Promise<Agent> {
  return (await openAgentWithContext(options)).agent
}

/** The `store.url` setting, a secret like the key when it carries a password. */
function storeSetting(settings: Settings): string | undefined {
  const store = settings.store as { url?: unknown } | undefined
  return typeof store?.url === 'string' ? store.url : undefined
}

/** Tells `onRefused` of every call refused because no front end was attached to ask. */
function refusals(onRefused: (call: ToolCallInfo, rule: string | undefined) => void): Extension {
  return {
    name: 'permission-refusals',
    permissionAnswered(request, answer) {
      if (answer.outcome === 'unanswered') onRefused(request.call, request.suggestedRule)
    },
  }
}

/** Rein's system prompt after `--system-prompt` (replaces it) and `--append-system-prompt` (follows it). */
function withPromptFlags(own: string, flags: OpenAgentOptions['systemPrompt']): string {
  const base = flags?.replace ?? own
  return flags?.append ? `${base}\n\n${flags.append}` : base
}
