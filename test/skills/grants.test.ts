import { describe, expect, it } from 'vitest'
import { ToolGrants } from '../../src/prompt-files/tool-grants.js'

describe('allow rules held while a skill or command is active', () => {
  it('hold per owner until that owner is revoked', () => {
    const grants = new ToolGrants()
    grants.grant('The skill a', ['Read', 'Bash(git log:*)'])
    grants.grant('The command /b', ['Edit'])
    grants.revoke('The skill a')
    expect(grants.rules()).toEqual(['Edit'])
  })

  it('an entry that is not a rule is one sentence naming its owner, and the valid ones still hold', () => {
    const grants = new ToolGrants()
    const problems = grants.grant('The skill a', ['Read', 'Frobnicate(x)'])
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(/^The skill a lists "Frobnicate\(x\)" names an unknown tool "Frobnicate"/)
    expect(grants.rules()).toEqual(['Read'])
  })
})
