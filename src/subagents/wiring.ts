import { join, sep } from 'node:path'
import type { Extension } from '../agent/extensions.js'
import type { Settings } from '../config/settings.js'
import { workspaceInstructions } from '../context/workspace.js'
import type { ModelAdapter } from '../llm/adapter.js'
import { costsMore, modelInfo, type ModelOverride } from '../llm/catalog.js'
import type { PermissionPolicy } from '../permissions/policy.js'
import type { CommitGuard } from '../session/session.js'
import type { SessionStore } from '../store/store.js'
import { createToolState, disposeToolState } from '../tools/registry.js'
import { createTaskTool } from './task-tool.js'
import type { AnyTool, ToolState } from '../tools/tool.js'
import { loadAgentFiles } from '../prompt-files/agents/agent-files.js'
import type { PromptRoot } from '../prompt-files/roots.js'
import type { SessionHeader } from '../session/events.js'
import { BUILTIN_AGENTS, childSystemPrompt, type AgentType } from './agent-types.js'
import { SUBAGENT_HOST_KEY, SubagentHost, toolsOfType, type ParentView, type SubagentHooks } from './host.js'
import { Pool } from './pool.js'
import { TreeBudget } from './budget.js'
import type { SubagentLimits } from '../config/limits.js'

export interface SubagentsOptions {
  cwd: string
  home: string
  userHome: string
  settings: Settings
  /** Depth, fan-out and the tree's counts, defaults filled in (src/config/limits.ts). */
  limits: SubagentLimits
  store: SessionStore
  adapter: ModelAdapter
  /** The parent agent once it exists. */
  parent: () => ParentView
  /** The parent's tool state: the host is left there for the `task` tool. */
  toolState: ToolState
  policy: PermissionPolicy
  /**
   * Hooks: `child()` loads a fresh set whose PreToolUse and PostToolUse hooks run for a child's calls (logged in the
   * child's session); `start`/`stop` run SubagentStart and SubagentStop in the parent's.
   */
  hooks: { child: () => Extension } & SubagentHooks
  commitGuard: CommitGuard
  modelOverrides: Record<string, ModelOverride>
  /** `--max-turns`: the model requests of one turn, counted over the parent and every subagent it starts. */
  maxSteps?: number
  /** Tells the user of a limit that refused a subagent (a notice). */
  notify?: (message: string) => void
  /** Whether the user trusts this workspace: only then may its agent files choose a model dearer than the session's. */
  trusted?: boolean
  /** Types given on the command line (`--agents`): over built-in and file-defined types of the same name. */
  extraTypes?: readonly AgentType[]
  /** More folders of agent files (a plugin's), after the user's. */
  roots?: readonly PromptRoot[]
}

/**
 * Subagents for one session (docs/subagents.md): loads the agent types (built-in, then agent files), puts a
 * `SubagentHost` in the parent's tool state and returns the `task` tool, plus problems found in agent files.
 */
export function attachSubagents(options: SubagentsOptions): {
  tool: AnyTool
  host: SubagentHost
  /** The tree's shared counts: the parent agent takes its steps from `budget.parent`. */
  budget: TreeBudget
  problems: string[]
  /** For a resumed child session (its header names a known type): its system prompt and how to cut the tools. */
  resumedChild: (header: SessionHeader) => { system: string; tools: (all: readonly AnyTool[]) => AnyTool[] } | undefined
} {
  const files = loadAgentFiles({ cwd: options.cwd, home: options.home, userHome: options.userHome, roots: options.roots })
  const types = new Map<string, AgentType>(BUILTIN_AGENTS.map((t) => [t.name, t]))
  for (const type of files.agents) types.set(type.name, type)
  for (const type of options.extraTypes ?? []) types.set(type.name, type)
  const { settings } = options
  // The workspace's own agent files (not the user's, even when the workspace is the user's home).
  const userDirs = [join(options.home, 'agents'), join(options.userHome, '.claude', 'agents')]
  const projectDirs = [join(options.cwd, '.rein', 'agents'), join(options.cwd, '.claude', 'agents')].filter((d) => !userDirs.includes(d))
  const fromWorkspace = (type: AgentType) => projectDirs.some((dir) => type.source.startsWith(dir + sep))
  const { maxDepth, parallel } = options.limits
  const budget = new TreeBudget({ perTurn: options.limits.maxPerTurn, perRun: options.limits.maxPerRun, treeSteps: options.maxSteps })
  const told = new Set<string>()
  const hooks = options.hooks
  const host = new SubagentHost({
    store: options.store,
    adapter: options.adapter,
    parent: options.parent,
    types,
    depth: 0,
    maxDepth,
    pool: new Pool(parallel),
    parallel,
    budget,
    childSteps: options.limits.maxSteps,
    refuseModel: (type, model, current) => {
      if (options.trusted || !fromWorkspace(type)) return undefined
      if (!costsMore(modelInfo(model, options.modelOverrides), modelInfo(current, options.modelOverrides))) return undefined
      return `The agent file ${type.source} asks for the model ${model}, which costs more than this session's ${current}; a workspace's agent may choose it only once the workspace is trusted, so the subagent runs on ${current}.`
    },
    onLimit: (message) => {
      if (told.has(message)) return
      told.add(message)
      options.notify?.(message)
    },
    extensions: () => [
      childHooks(hooks.child()),
      workspaceInstructions({ home: options.home }),
      options.policy,
    ],
    toolState: (childId) => {
      const state = createToolState({
        spillDir: join(options.home, 'spill', childId),
        secretEnv: settings.secretEnv ?? [],
        passEnv: settings.passEnv ?? [],
        allowPrivateNetwork: settings.webFetch?.allowPrivate === true,
      })
      options.policy.guardTools(state)
      return state
    },
    disposeToolState,
    commitGuard: options.commitGuard,
    modelOverrides: options.modelOverrides,
    hooks: { start: (info) => hooks.start(info), stop: (info) => hooks.stop(info) },
  })
  options.toolState.extra.set(SUBAGENT_HOST_KEY, host)
  const resumedChild = (header: SessionHeader) => {
    const type = header.subagent ? types.get(header.subagent.agent) : undefined
    if (!type) return undefined
    return { system: childSystemPrompt(type, header.cwd), tools: (all: readonly AnyTool[]) => toolsOfType(type, all, 1 < maxDepth) }
  }
  return { tool: createTaskTool([...types.values()]), host, budget, problems: files.problems, resumedChild }
}

/** Only the tool hooks of a hooks extension: a child has no SessionStart, prompt or Stop hooks of its own. */
function childHooks(hooks: Extension): Extension {
  return { name: 'hooks', preTool: hooks.preTool?.bind(hooks), postTool: hooks.postTool?.bind(hooks) }
}
