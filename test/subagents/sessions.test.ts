import { afterEach, describe, expect, it } from 'vitest'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { childOf, PARENT, parentAndChildren } from './support.js'

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

describe('a child session in the sessions commands', () => {
  it('is marked in the list, linked with its cost in the parent transcript, and resumable (as its type) and forkable like any session', async () => {
    const box = sandbox()
    mock = await startMockModel({
      script: [
        { system: PARENT, match: 'survey', toolCalls: [{ name: 'task', arguments: { description: 'count files', prompt: 'How many files?', subagent_type: 'explore' } }] },
        { system: childOf('explore'), text: 'None.' },
        { system: PARENT, match: 'survey', text: 'The directory is empty.' },
        { system: childOf('explore'), match: 'And now?', text: 'Still empty.' },
      ],
    })
    const env = cliEnv({ url: mock.url, home: box.home })
    expect((await runCli(['-p', 'survey the directory'], { cwd: box.cwd, env })).code).toBe(0)
    const { parent, children } = parentAndChildren(box.home)
    const child = children[0].header.id

    const list = await runCli(['sessions', 'list'], { cwd: box.cwd, env })
    expect(list.stdout).toContain(`↳ explore subagent of ${parent.header.id.slice(0, 8)}: How many files?`)

    const show = await runCli(['sessions', 'show', parent.header.id], { cwd: box.cwd, env })
    expect(show.stdout).toContain(`↳ subagent explore (count files): session ${child}`)
    expect(show.stdout).toMatch(new RegExp(`↳ subagent ${child.slice(0, 8)} completed: \\d+ tokens in \\(\\d+ cached\\), \\d+ out, \\$\\d+\\.\\d{6}`))
    expect(show.stdout).toMatch(/\nsubagents: 1 run, \d+ tokens, \$\d+\.\d{6}\n/)
    const shownChild = await runCli(['sessions', 'show', child], { cwd: box.cwd, env })
    expect(shownChild.stdout).toContain(`subagent explore of ${parent.header.id} (call `)
    const md = await runCli(['sessions', 'export', parent.header.id, '--format', 'md'], { cwd: box.cwd, env })
    expect(md.stdout).toContain(`**Subagent** \`explore\` (count files): session \`${child}\``)

    const resumed = await runCli(['-p', 'And now?', '--resume', child], { cwd: box.cwd, env })
    expect(resumed.stdout).toContain('Still empty.')
    const last = mock.requests.at(-1)?.body as { tools: { function: { name: string } }[] }
    expect(last.tools.map((t) => t.function.name)).toEqual(['bash', 'glob', 'grep', 'ls', 'read', 'web_fetch'])
    const forked = await runCli(['sessions', 'fork', child], { cwd: box.cwd, env })
    expect(forked.code).toBe(0)
  })
})
