import type { EnteringMessage, Extension } from '../../agent/extensions.js'
import { ProducedIndex, textOfBlocks } from '../../context/produced-messages.js'
import type { Refusal } from '../../fs/read-gate.js'
import { NO_SKILLS_TEXT, SKILLS_LISTING, skillsListingText } from './listing.js'
import { realPathOf } from '../../tools/paths.js'
import type { ToolState } from '../../tools/tool.js'
import { loadSkills, skillFolders } from './catalog.js'
import { SKILLS_KEY, type SkillCatalog } from '../../tools/skill-catalog.js'
import type { ToolGrants } from '../tool-grants.js'
import type { PromptRoot } from '../roots.js'

export interface SkillsOptions {
  cwd: string
  reinHome: string
  userHome: string
  /** Whether the user trusts this workspace: a workspace skill's `allowed-tools` holds only then. */
  trusted: boolean
  grants: ToolGrants
  toolState: ToolState
  /** The read guard every skill file passes (`ReadGuard.refusesLoading`; see `loadSkills`). */
  refuses: Refusal
  /**
   * The tokens the listing may take: the prompt files' one budget less what the agent types' listing took (read at
   * each listing, so it follows the session's task tool); LISTING_TOKEN_BUDGET when absent.
   */
  listingBudget?: () => number
  /** Problems found at start (one sentence per malformed skill); later ones reach the user as notices. */
  problems?: string[]
  /** More skill folders (a plugin's `skills/`). */
  roots?: readonly PromptRoot[]
}

/**
 * Skills as one extension. The listing producer: at the first step of every turn it re-reads the skill folders and,
 * when the listing text differs from its last message still on the surface (or there is none, as after compaction),
 * enters the new listing as a `context/message` in its own `<system-reminder>` frame; while the set is unchanged the
 * request prefix stays byte-identical. Activation: after the `skill` tool loads a skill, the skill's `allowed-tools`
 * are allow rules until the turn ends (a workspace skill's only in a trusted workspace), and a user-level skill's own
 * files are readable for the rest of the session.
 */
export function skills(options: SkillsOptions): Extension {
  const folders = skillFolders(options)
  const reported = new Set<string>()
  let catalog: SkillCatalog = loadSkills(folders, options.cwd, options.refuses)
  for (const problem of catalog.problems) {
    reported.add(problem)
    options.problems?.push(problem)
  }
  options.toolState.extra.set(SKILLS_KEY, () => catalog)
  const owners = new Set<string>()
  // The listing's last message on the surface, kept as the log grows: O(own messages) per step, not O(surface).
  const produced = new ProducedIndex(SKILLS_LISTING)

  return {
    name: SKILLS_LISTING,
    preStep(step, entering, agent) {
      if (step.step === 1) {
        catalog = loadSkills(folders, options.cwd, options.refuses)
        for (const problem of catalog.problems.filter((p) => !reported.has(p))) {
          reported.add(problem)
          agent.notify('warning', problem)
        }
      }
      const listing = skillsListingText(catalog.skills, options.listingBudget?.())
      const last = produced.messages(agent, entering).at(-1)
      const lastText = last && textOfBlocks(last.content)
      const text = listing?.text ?? (last && lastText !== NO_SKILLS_TEXT ? NO_SKILLS_TEXT : undefined)
      if (text === undefined || text === lastText) return
      const message: EnteringMessage = {
        type: 'context/message',
        content: [{ type: 'text', text }],
        source: { kind: SKILLS_LISTING },
        meta: { skills: listing?.listed ?? [], total: catalog.skills.length },
      }
      return { action: 'enter', messages: [...entering, message] }
    },
    postTool(call, result, agent) {
      if (call.name !== 'skill' || result.isError) return
      const skill = catalog.skills.find((s) => s.name === (call.input as { name?: string }).name?.trim())
      if (!skill) return
      // A user-level skill lives outside the workspace; the files its instructions name stay readable for the
      // session once it is loaded (a folder whose path holds glob characters is left to ask, as a pattern could widen).
      const real = realPathOf(skill.dir)
      if (skill.scope === 'user' && !/[*?[\]{}()!]/.test(real)) options.grants.grant(`The skill ${skill.name}'s files`, [`Read(${real}/**)`])
      if (!skill.allowedTools.length) return
      if (!options.trusted && skill.scope === 'project') {
        agent.notify('info', `The skill ${skill.name} lists allowed-tools, which a workspace skill gets only in a trusted workspace; its tools ask as usual.`)
        return
      }
      const owner = `The skill ${skill.name}`
      owners.add(owner)
      for (const problem of options.grants.grant(owner, skill.allowedTools)) agent.notify('warning', problem)
    },
    event(event, agent) {
      produced.observe(event, agent)
      if (event.type !== 'turn/end') return
      for (const owner of owners) options.grants.revoke(owner)
      owners.clear()
    },
  }
}
