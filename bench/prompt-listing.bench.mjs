// The prompt files' one listing budget (docs/skills.md): what the task tool's agent list and the skills reminder cost
// in every request, for the sizes issue 32 met in published collections — 156 agent files, 31 skills — and for a
// session with only the built-in agents. Tokens are bytes / 4, the estimate every Rein budget uses.
// Needs the build (`npm run build`).
import { agentListing } from '../dist/subagents/task-tool.js'
import { BUILTIN_AGENTS } from '../dist/subagents/agent-types.js'
import { skillsListingText } from '../dist/prompt-files/skills/listing.js'
import { PROMPT_LISTING_TOKEN_BUDGET } from '../dist/prompt-files/listing-budget.js'

const tokens = (text) => Math.ceil(Buffer.byteLength(text, 'utf8') / 4)
// Agent descriptions as published: a sentence, then <example> blocks (which the listing leaves out).
const example = '\n\n<example>\nContext: the work is done.\nuser: "check it"\nassistant: "I will use the agent."\n</example>'
const agents = Array.from({ length: 156 }, (_, i) => ({ ...BUILTIN_AGENTS[0], name: `agent-${i}`, description: `Use this agent for the checks of area ${i}: it reads the changed files and reports findings.${example}` }))
const skills = Array.from({ length: 31 }, (_, i) => ({ name: `skill-${i}`, description: `Helps with task family ${i}: use it when the user asks for that kind of work, with the steps and scripts it carries.`, scope: 'user', dir: `/s/${i}`, allowedTools: [], body: '' }))
const everyAgentInFull = tokens([...BUILTIN_AGENTS, ...agents].map((t) => `${t.name} (${t.description})`).join(', '))

for (const [label, types] of [['built-in agents only', BUILTIN_AGENTS], ['156 agent files', [...BUILTIN_AGENTS, ...agents]]]) {
  const a = agentListing(types)
  const s = skillsListingText(skills, PROMPT_LISTING_TOKEN_BUDGET - a.tokens)
  console.log(`${label}: agents ~${a.tokens} tokens, skills ~${tokens(s.text)} tokens (${s.listed.length} of ${skills.length} listed), together ~${a.tokens + tokens(s.text)} of ${PROMPT_LISTING_TOKEN_BUDGET}`)
}
console.log(`every one of the 156 agents listed in full (as before issue 32): ~${everyAgentInFull} tokens`)
