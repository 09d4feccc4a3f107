import type { Skill } from '../../tools/skill-catalog.js'
import { escapeReminderText, systemReminder } from '../../context/reminder.js'
import { AGENT_LISTING_CAP, estimateTokens, fitListing, LEFT_OUT_NAMES_TOKENS, leftOutSentence, PROMPT_LISTING_TOKEN_BUDGET } from '../listing-budget.js'

/** The `source.kind` of the skills listing messages. */
export const SKILLS_LISTING = 'skills-listing'

/**
 * Estimated tokens the listing may take (bytes / 4) when the agent types take all of theirs: the prompt files' one
 * budget less the agents' cap (`src/prompt-files/listing-budget.ts`). Skills past it are left out and named.
 */
export const LISTING_TOKEN_BUDGET = PROMPT_LISTING_TOKEN_BUDGET - AGENT_LISTING_CAP

const tokens = estimateTokens

/**
 * The block the model reads: each skill's name and description, nothing more (progressive disclosure: the `skill`
 * tool gives the instructions when the model asks). Skills are listed in precedence order until the budget is spent;
 * a sentence counts those left out. Undefined when there are no skills.
 */
export function skillsListingText(skills: readonly Skill[], budget = LISTING_TOKEN_BUDGET): { text: string; listed: string[] } | undefined {
  if (!skills.length) return undefined
  const head = 'Skills are available. When a task matches one, call the skill tool with its name to load its instructions first:'
  // The frame, the head and the tail naming what was left out are paid for before any skill.
  const fixed = tokens(head) + 40 + LEFT_OUT_NAMES_TOKENS
  const entries = skills.map((skill) => ({ name: skill.name, line: `- ${skill.name}: ${escapeReminderText(skill.description)}` }))
  const fit = fitListing(entries, Math.max(0, budget - fixed))
  const tail = fit.left.length ? [`${escapeReminderText(leftOutSentence({ one: 'skill', many: 'skills' }, fit.left))}. Any of them loads by name with the skill tool; the user can list them all with /skills.`] : []
  return { text: systemReminder([head, ...fit.lines, ...tail].join('\n')), listed: fit.listed }
}

/** What the model is told when every skill it was offered has gone. */
export const NO_SKILLS_TEXT = systemReminder('No skills are available any more; the ones listed earlier were removed.')
