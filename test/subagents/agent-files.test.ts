import { afterEach, describe, expect, it } from 'vitest'
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseAgentFile } from '../../src/prompt-files/agents/agent-files.js'
import { notReadOnly } from '../../src/subagents/read-only-bash.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { childOf, ofType, PARENT, parentAndChildren } from './support.js'

const FIXTURES = resolve(import.meta.dirname, '../fixtures/agents')

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

describe('agent files', () => {
  it('reads Claude Code frontmatter: tool names map to Rein names, an inherited model stays unset, the body is the prompt', () => {
    const parsed = parseAgentFile('---\nname: r\ndescription: "Reviews"\ntools:\n  - Read\n  - Bash(git log:*)\nmodel: sonnet\n---\nReview it.\n', 'r.md')
    expect(parsed).toEqual({ name: 'r', description: 'Reviews', tools: ['read', 'bash'], prompt: 'Review it.', source: 'r.md' })
    expect(parseAgentFile('---\nname: r\ndescription: x\ntools: [Grep, mcp__gh__issues]\nmodel: deepseek-v4-pro\n---\nGo.', 'r.md')).toMatchObject({
      tools: ['grep', 'mcp__gh__issues'],
      model: 'deepseek-v4-pro',
    })
  })

  it('a full Claude model id in an agent file runs the child on the parent model, as the aliases do', () => {
    const parsed = parseAgentFile('---\nname: r\ndescription: x\nmodel: claude-sonnet-4-5-20250929\n---\nGo.', 'r.md')
    expect(parsed).not.toHaveProperty('model')
  })

  it('turns a malformed file into one sentence naming it', () => {
    expect(parseAgentFile('no frontmatter', '/a/x.md')).toBe('The agent file /a/x.md has no frontmatter between --- lines; it was not loaded.')
    expect(parseAgentFile('---\nname: bad name!\ndescription: x\n---\nbody', '/a/y z.md')).toMatch(/^The agent file \/a\/y z.md needs a name/)
    expect(parseAgentFile('---\ndescription: x\n---\nbody', '/a/y.md')).toMatch(/^The agent file \/a\/y.md needs a name/)
    expect(parseAgentFile('---\nname: ok\n---\nbody', '/a/z.md')).toMatch(/needs a description/)
    expect(parseAgentFile('---\nname: ok\ndescription: d\n  tools: [Read\n---\nbody', '/a/w.md')).toMatch(/^The agent file \/a\/w.md has frontmatter that is not valid YAML \(.+\); fix the fields between the --- lines; it was not loaded\.$/)
  })

  it('runs a custom agent from .claude/agents with only its tools: a call outside its list is refused, and a broken file is reported while the rest load', async () => {
    const box = sandbox()
    mkdirSync(join(box.cwd, '.claude', 'agents'), { recursive: true })
    copyFileSync(join(FIXTURES, 'reviewer.md'), join(box.cwd, '.claude', 'agents', 'reviewer.md'))
    copyFileSync(join(FIXTURES, 'broken.md'), join(box.cwd, '.claude', 'agents', 'broken.md'))
    writeFileSync(join(box.cwd, 'app.js'), 'let x = 1\n')
    mock = await startMockModel({
      script: [
        { system: PARENT, toolCalls: [{ name: 'task', arguments: { description: 'review app', prompt: 'Review app.js.', subagent_type: 'reviewer' } }] },
        { system: childOf('reviewer'), toolCalls: [{ name: 'bash', arguments: { command: 'rm -rf .' } }] },
        { system: childOf('reviewer'), toolCalls: [{ name: 'read', arguments: { file_path: join(box.cwd, 'app.js') } }] },
        { system: childOf('reviewer'), text: 'app.js:1 uses let where const would do.' },
        { system: PARENT, text: 'One nit in app.js.' },
      ],
    })
    const r = await runCli(['-p', 'review app.js', '--permission-mode', 'bypass'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.code).toBe(0)
    expect(r.stderr).toContain(`The agent file ${join(box.cwd, '.claude', 'agents', 'broken.md')} needs a name`)
    expect(r.stdout).toContain('One nit in app.js.')

    type Body = { messages: { content: string }[]; tools: { function: { name: string } }[] }
    const childRequest = mock.requests.find((q) => (q.body as Body).messages[0].content.includes(childOf('reviewer')))
    const body = childRequest?.body as Body
    expect(body.tools.map((t) => t.function.name)).toEqual(['grep', 'read'])
    expect(body.messages[0].content).toContain('You review code. Read the file you are given')

    const { children } = parentAndChildren(box.home)
    const results = ofType(children[0], 'tool/result').map((e) => e.data as { isError: boolean; content: { text: string }[] })
    expect(results[0]).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/^Error: there is no tool named "bash"\. Available tools: grep, read\./) }] })
    expect(results[1].isError).toBe(false)
  })

  it('names an unknown subagent type to the model, with the types there are', async () => {
    const box = sandbox()
    mock = await startMockModel({
      script: [
        { system: PARENT, toolCalls: [{ name: 'task', arguments: { description: 'x', prompt: 'y', subagent_type: 'wizard' } }] },
        { system: PARENT, text: 'No wizard.' },
      ],
    })
    const r = await runCli(['-p', 'go'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.code).toBe(0)
    const { parent } = parentAndChildren(box.home)
    expect(ofType(parent, 'tool/result')[0].data).toMatchObject({ isError: true, content: [{ text: 'Error: there is no subagent type "wizard". Types: explore, general.' }] })
  })
})

describe('read-only bash for explore', () => {
  it('accepts commands that only read', () => {
    for (const command of ['ls -la', 'grep -rn foo src | head -20', 'git log --oneline -5', 'find . -name "*.ts"', 'cat a.txt && wc -l b.txt']) {
      expect(notReadOnly(command), command).toBeUndefined()
    }
  })

  it('refuses commands that could change anything', () => {
    expect(notReadOnly('rm -rf .')).toBe('rm is not on the list of reading commands')
    expect(notReadOnly('echo hi > out.txt')).toBeDefined()
    expect(notReadOnly('find . -delete')).toBe('find -delete can write or run commands')
    expect(notReadOnly('git commit -m x')).toBe('git commit is not a reading git command')
    expect(notReadOnly('cat $(rm x)')).toMatch(/does not show/)
    expect(notReadOnly('ls; touch x')).toBe('touch is not on the list of reading commands')
  })
})
