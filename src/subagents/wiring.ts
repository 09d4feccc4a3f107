import { join } from 'node:path'
import type { Extension } from '../agent/extensions.js'
import type { Settings } from '../config/settings.js'
import { workspaceInstructions } from '../context/workspace.js'
import type { ModelAdapter } from '../llm/adapter.js'
import type { ModelOverride } from '../llm/catalog.js'
import type { PermissionPolicy } from '../permissions/policy.js'
import type { CommitGuard } from '../session/session.js'
import type { SessionStore } from '../store/store.js'
import { createToolState, disposeToolState } from '../tools/registry.js'
import { createTaskTool } from '../tools/task.js'
import type { AnyTool, ToolState } from '../tools/tool.js'
import { loadAgentFiles } from './agent-files.js'
import { BUILTIN_AGENTS, type AgentType } from './agent-types.js'
import { SUBAGENT_HOST_KEY, SubagentHost, type ParentView } from './host.js'
import { Pool } from './pool.js'

export interface SubagentsOptions {
  cwd: string
  home: string
  userHome: string
  settings: Settings
  store: SessionStore
  adapter: ModelAdapter
  /** The parent agent once it exists. */
  parent: () => ParentView
  /** The parent's tool state: the host is left there for the `task` tool. */
  toolState: ToolState
  policy: PermissionPolicy
  /** The parent's hooks: a child's tool calls run its PreToolUse and PostToolUse hooks. */
  hooks: Extension
  commitGuard: CommitGuard
  modelOverrides: Record<string, ModelOverride>
}

/**
 * Subagents for one session (docs/subagents.md): loads the agent types (built-in, then agent files), puts a
 * `SubagentHost` in the parent's tool state and returns the `task` tool, plus problems found in agent files.
 */
export function attachSubagents(options: SubagentsOptions): { tool: AnyTool; host: SubagentHost; problems: string[] } {
  const files = loadAgentFiles({ cwd: options.cwd, home: options.home, userHome: options.userHome })
  const types = new Map<string, AgentType>(BUILTIN_AGENTS.map((t) => [t.name, t]))
  for (const type of files.agents) types.set(type.name, type)
  const { settings } = options
  const maxDepth = settings.subagents?.maxDepth ?? 1
  const parallel = settings.subagents?.parallel ?? 4
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
    extensions: () => [
      { name: 'hooks', preTool: hooks.preTool, postTool: hooks.postTool },
      workspaceInstructions({ home: options.home }),
      options.policy,
    ],
    toolState: (childId) => {
      const state = createToolState({
        spillDir: join(options.home, 'spill', childId),
        secretEnv: settings.secretEnv ?? [],
        allowPrivateNetwork: settings.webFetch?.allowPrivate === true,
      })
      options.policy.guardTools(state)
      return state
    },
    disposeToolState,
    commitGuard: options.commitGuard,
    modelOverrides: options.modelOverrides,
  })
  options.toolState.extra.set(SUBAGENT_HOST_KEY, host)
  return { tool: createTaskTool([...types.values()]), host, problems: files.problems }
}
