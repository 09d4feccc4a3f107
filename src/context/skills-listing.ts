import type { Skill } from '../tools/skill-catalog.js'
import { escapeReminderText, systemReminder } from './reminder.js'

/** The `source.kind` of the skills listing messages. */
export const SKILLS_LISTING = 'skills-listing'

/** Estimated tokens the listing may take (bytes / 4); skills past it are left out, with a sentence saying so. */
export const LISTING_TOKEN_BUDGET = 1500

const tokens = (text: string): number => Math.ceil(Buffer.byteLength(text, 'utf8') / 4)

/**
 * The block the model reads: each skill's name and description, nothing more (progressive disclosure: the `skill`
 * tool gives the instructions when the model asks). Skills are listed in precedence order until the budget is spent;
 * a sentence counts those left out. Undefined when there are no skills.
 */
export function skillsListingText(skills: readonly Skill[], budget = LISTING_TOKEN_BUDGET): { text: string; listed: string[] } | undefined {
  if (!skills.length) return undefined
  const head = 'Skills are available. When a task matches one, call the skill tool with its name to load its instructions first:'
  const lines: string[] = []
  let used = tokens(head) + 40
  for (const skill of skills) {
    const line = `- ${skill.name}: ${escapeReminderText(skill.description)}`
    if (used + tokens(line) > budget) break
    lines.push(line)
    used += tokens(line)
  }
  const left = skills.length - lines.length
  const tail = left ? [`${left} more skill${left === 1 ? ' was' : 's were'} left out of this list to keep it short; the user can list them all with /skills.`] : []
  return { text: systemReminder([head, ...lines, ...tail].join('\n')), listed: skills.slice(0, lines.length).map((s) => s.name) }
}

/** What the model is told when every skill it was offered has gone. */
export const NO_SKILLS_TEXT = systemReminder('No skills are available any more; the ones listed earlier were removed.')
