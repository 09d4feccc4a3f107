import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { MockModel } from '../support/mock-model.js'
import { messagesOf, ReinRpc, userText, type WireMessage } from '../context/cli-support.js'
import { eachTestInFixture, envFor, type FixtureWorkspace } from '../slash/support.js'

/** Skills through the built CLI (`rein rpc`) against the mock model: what each request holds. */

let ws: FixtureWorkspace
let mock: MockModel
eachTestInFixture((w, m) => ((ws = w), (mock = m)))

const isListing = (m: WireMessage) => m.role === 'user' && userText(m).startsWith('<system-reminder>\nSkills are available.')

/** Every request extends the one before it exactly, while the header is unchanged (DESIGN principle 3). */
function expectPrefixStable(): void {
  for (let i = 1; i < mock.requests.length; i++) {
    const before = messagesOf(mock, i - 1)
    const after = messagesOf(mock, i)
    expect(JSON.stringify(after.slice(0, before.length)), `request ${i} does not extend request ${i - 1}`).toBe(JSON.stringify(before))
  }
}

async function withRpc(run: (rpc: ReinRpc) => Promise<void>): Promise<void> {
  const rpc = new ReinRpc(['--cwd', ws.cwd], envFor(mock, ws))
  try {
    await run(rpc)
  } finally {
    await rpc.close()
  }
}

describe('skills, end to end', () => {
  it('the listing enters once, after the prompt, and never in the system prompt', async () => {
    mock.push({ text: 'one' }, { text: 'two' })
    await withRpc(async (rpc) => {
      await rpc.prompt('first')
      await rpc.prompt('second')
    })
    const last = messagesOf(mock, 1)
    expect(last.filter(isListing)).toHaveLength(1)
    const listing = userText(last.find(isListing)!)
    expect(listing).toContain('- pdf-tools: Extract text and tables from PDF files')
    expect(listing).not.toContain('Quick start')
    const system = last.find((m) => m.role === 'system')
    expect(userText(system!)).not.toContain('pdf-tools')
    expectPrefixStable()
  })

  it('a skill added mid-session enters a new listing at the next turn, and every request keeps the prefix', async () => {
    mock.push({ text: 'one' }, { text: 'two' }, { text: 'three' })
    await withRpc(async (rpc) => {
      await rpc.prompt('first')
      mkdirSync(join(ws.cwd, '.rein/skills/deploy'), { recursive: true })
      writeFileSync(join(ws.cwd, '.rein/skills/deploy/SKILL.md'), '---\nname: deploy\ndescription: Deploy to staging.\n---\nRun make deploy.\n')
      await rpc.prompt('second')
      await rpc.prompt('third')
    })
    const listings = messagesOf(mock, 2).filter(isListing).map(userText)
    expect(listings).toHaveLength(2)
    expect(listings[0]).not.toContain('deploy')
    expect(listings[1]).toContain('- deploy: Deploy to staging.')
    expectPrefixStable()
  })

  it('the skill tool returns SKILL.md’s body verbatim and lists the skill’s other files', async () => {
    mock.push({ toolCalls: [{ name: 'skill', arguments: { name: 'pdf-tools' } }] }, { text: 'done' })
    await withRpc((rpc) => rpc.prompt('extract the tables from report.pdf'))
    const result = messagesOf(mock, 1).find((m) => m.role === 'tool')!
    const text = String(result.content)
    const dir = join(ws.cwd, '.claude/skills/pdf-tools')
    expect(text).toContain('# PDF tools\n\n## Quick start\n\nUse `scripts/extract.py` to pull text out of a PDF:')
    expect(text).toContain(`- ${join(dir, 'reference.md')}\n- ${join(dir, 'scripts/extract.py')}`)
    expectPrefixStable()
  })

  it('the skill tool names the skills there are when asked for one that does not exist', async () => {
    mock.push({ toolCalls: [{ name: 'skill', arguments: { name: 'nope' } }] }, { text: 'done' })
    await withRpc((rpc) => rpc.prompt('go'))
    const result = messagesOf(mock, 1).find((m) => m.role === 'tool')!
    expect(String(result.content)).toBe('Error: there is no skill named nope; the skills are changelog, pdf-tools, release-notes, sql-style.')
  })
})
