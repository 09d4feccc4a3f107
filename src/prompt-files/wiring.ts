import { homedir } from 'node:os'
import type { Extension } from '../agent/extensions.js'
import { loadingRefusal } from '../config/read-guard.js'
import type { PermissionPolicy } from '../permissions/policy.js'
import { planMode, type PlanApproval } from '../plan/extension.js'
import { commandFolders, loadCommands } from './commands/catalog.js'
import { customCommands } from './commands/extension.js'
import type { ToolState } from '../tools/tool.js'
import { skills } from './skills/extension.js'
import type { ToolGrants } from './tool-grants.js'
import type { PromptRoot } from './roots.js'

export interface WorkflowOptions {
  cwd: string
  /** `$REIN_HOME`. */
  home: string
  env: NodeJS.ProcessEnv
  trusted: boolean
  policy: Pick<PermissionPolicy, 'decide'>
  /** The allow rules skills and commands hold while active; the policy reads them (`grantedAllow`). */
  grants: ToolGrants
  toolState: ToolState
  secretEnv?: readonly string[]
  /** Model ids settings add to the catalog, which a command's `model` may name. */
  knownModel: (id: string) => boolean
  /** Whether `model` costs more than `than` (the catalog's prices with the user's overrides). */
  dearer?: (model: string, than: string) => boolean
  approvePlan?: PlanApproval
  /** The skills listing's share of the prompt files' one token budget (see `SkillsOptions.listingBudget`). */
  skillsListingBudget?: () => number
  /** Whether a name is a built-in command's (a custom command never takes it over). */
  isBuiltin: (name: string) => boolean
  /** Told one sentence per malformed command or skill file found at start. */
  report: (message: string) => void
  /** More folders of commands and skills (the plugins' source roots). */
  roots?: readonly PromptRoot[]
}

/**
 * The user's workflow files as extensions, for the composition root: custom commands (`first`, ahead of the hooks, so
 * UserPromptSubmit sees the expansion), then the skills listing and plan approval (`after` the other context
 * producers, before the permission policy).
 */
export function workflowExtensions(options: WorkflowOptions): { first: Extension[]; after: Extension[] } {
  const { cwd, home, env, trusted, grants, toolState, roots } = options
  const userHome = env.HOME ?? homedir()
  // Every command and skill file passes the read gate with the agent's read guard (src/fs/read-gate.ts).
  const refuses = loadingRefusal(toolState, { cwd, reinHome: home, userHome })
  loadCommands(commandFolders({ cwd, reinHome: home, userHome, roots }), refuses).problems.forEach(options.report)
  const problems: string[] = []
  const listing = skills({ cwd, reinHome: home, userHome, trusted, grants, toolState, refuses, problems, listingBudget: options.skillsListingBudget, roots })
  problems.forEach(options.report)
  return {
    first: [
      customCommands({ cwd, reinHome: home, userHome, trusted, policy: options.policy, grants, env, secretEnv: options.secretEnv, knownModel: options.knownModel, dearer: options.dearer, refuses, isBuiltin: options.isBuiltin, roots }),
    ],
    after: [listing, planMode({ toolState, approve: options.approvePlan })],
  }
}
