import { describe, expect, it } from 'vitest'
import { BUILTIN_AGENTS } from '../../src/subagents/agent-types.js'
import { AGENT_LISTING_TOKEN_BUDGET, createTaskTool } from '../../src/subagents/task-tool.js'

const tokens = (text: string): number => Math.ceil(Buffer.byteLength(text, 'utf8') / 4)

describe("the task tool's listing of agent types", () => {
  it('lists every built-in type', () => {
    const { description } = createTaskTool(BUILTIN_AGENTS)
    for (const agent of BUILTIN_AGENTS) expect(description).toContain(`${agent.name} (${agent.description})`)
    expect(description).not.toMatch(/left out/)
  })

  it('keeps 156 agent files inside its token budget and says how many it left out', () => {
    const many = Array.from({ length: 156 }, (_, i) => ({ ...BUILTIN_AGENTS[0], name: `agent-${i}`, description: `Reviews module ${i} and reports findings` }))
    const { description } = createTaskTool([...BUILTIN_AGENTS, ...many])
    const listed = description.slice(description.indexOf('Types: '))
    expect(tokens(listed)).toBeLessThan(AGENT_LISTING_TOKEN_BUDGET + 30)
    const shown = (listed.match(/agent-\d+ \(/g) ?? []).length
    expect(listed).toContain(`${156 - shown} more agents, not listed: agent-${shown}, agent-${shown + 1}, `)
    expect(listed).toMatch(/ and \d+ others \(any of them may be named; an unknown name answers with them all\)\.$/)
    expect(description).toContain(`${BUILTIN_AGENTS[0].name} (`)
  })
})
