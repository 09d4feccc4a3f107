import { join } from 'node:path'
import { z } from 'zod'
import { SKILLS_KEY, skillFiles, type SkillCatalog } from './skill-catalog.js'
import { errorOutput, type Tool } from './tool.js'
import { stringArg } from './display-args.js'

const schema = z.object({ name: z.string().min(1) })

const description = 'Load a listed skill by name: returns its instructions and the paths of its other files, which you read with read.'

type Args = z.infer<typeof schema>

/**
 * Hands the model one skill's `SKILL.md` body verbatim, then where the skill lives and its other files. The skills
 * are those the listing producer last read (`SKILLS_KEY` in the tool state); with none, every name is unknown.
 */
export const skillTool: Tool<Args> = {
  name: 'skill',
  description,
  schema,
  readOnly: true,
  kind: 'read',
  category: 'read',
  peerNames: { claudeCode: 'Skill' },
  display: {
    verb: 'Skill',
    subject: (args) => stringArg(args, 'name'),
  },
  async run(args, ctx) {
    const catalog = (ctx.state.extra.get(SKILLS_KEY) as (() => SkillCatalog) | undefined)?.()
    const skills = catalog?.skills ?? []
    const skill = skills.find((s) => s.name === args.name.trim())
    if (!skill) {
      const known = skills.map((s) => s.name)
      return errorOutput(
        known.length
          ? `Error: there is no skill named ${args.name}; the skills are ${known.join(', ')}.`
          : `Error: there is no skill named ${args.name}; no skills are installed.`,
      )
    }
    const { files, more } = skillFiles(skill)
    const listing = files.length
      ? `\n\nThe skill's folder is ${skill.dir}. Its other files (read them with read when the instructions call for them):\n${files.map((f) => `- ${join(skill.dir, f)}`).join('\n')}${more ? `\n- … and ${more} more` : ''}`
      : `\n\nThe skill's folder is ${skill.dir}; it holds no other files.`
    return { content: [{ type: 'text', text: `${skill.body.replace(/\s*$/, '')}${listing}` }], meta: { skill: skill.name, dir: skill.dir } }
  },
}
