import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { MockModel } from '../support/mock-model.js'
import { messagesOf, ReinRpc, runRein, userText } from '../context/cli-support.js'
import { eachTestInFixture, envFor, type FixtureWorkspace } from './support.js'

/** Custom commands from `rein -p "/name args"`: what the model receives and what the log keeps. */

let ws: FixtureWorkspace
let mock: MockModel
eachTestInFixture((w, m) => ((ws = w), (mock = m)))

/** The fixture holds two broken command files and a broken skill; each run reports them, one sentence each, on stderr. */
const FIXTURE_PROBLEMS = [
  'rein: The skill file .claude/skills/broken-skill/SKILL.md has no description, so the model could never choose it;',
  'rein: The command file .claude/commands/bad-yaml.md has frontmatter that is not valid YAML',
  'rein: The command file .claude/commands/unclosed.md opens a frontmatter block with --- but never closes it; add a line --- after the fields.',
]

/** The notice an untrusted run prints about what the fixture's commands and skills would widen. */
const UNTRUSTED = 'rein: This workspace is not trusted, so it ran without what it defines: command /review allowing'

async function print(prompt: string, ...flags: string[]) {
  const result = await runRein(['-p', prompt, '--cwd', ws.cwd, ...flags], envFor(mock, ws))
  const lines = result.stderr.split('\n').filter(Boolean)
  const other = lines.filter((line) => !FIXTURE_PROBLEMS.some((p) => line.startsWith(p)) && !line.startsWith(UNTRUSTED))
  const problems = lines.filter((line) => FIXTURE_PROBLEMS.some((p) => line.startsWith(p))).length
  return { ...result, problems, stderr: other.map((l) => `${l}\n`).join('') }
}

/** The user prompts the model received in the first request. */
function prompts(): string[] {
  return messagesOf(mock, 0)
    .filter((m) => m.role === 'user' && !userText(m).startsWith('<system-reminder>'))
    .map(userText)
}

/** Every event of the one session this test ran. */
function loggedEvents(): { type: string; data: Record<string, unknown> }[] {
  const dir = join(ws.home, 'sessions')
  const [folder] = readdirSync(dir)
  const [file] = readdirSync(join(dir, folder)).filter((f) => f.endsWith('.jsonl'))
  return readFileSync(join(dir, folder, file), 'utf8').trim().split('\n').slice(1).map((l) => JSON.parse(l))
}

describe('custom commands from -p', () => {
  it('each malformed command or skill file is one sentence on stderr, and the others still load', async () => {
    mock.push({ text: 'ok' })
    const result = await print('/explain x')
    expect(result.problems).toBe(3)
    expect(result.stderr).toBe('')
    expect(prompts()[0]).toContain('Explain what the code does')
  })

  it('a command with positional arguments and an @path include reaches the model as the prompt, verbatim', async () => {
    mock.push({ text: 'Looks fine.' })
    const result = await print('/review src/app.ts "error handling"')
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const app = readFileSync(join(ws.cwd, 'src/app.ts'), 'utf8')
    expect(prompts()).toEqual([
      'Review @src/app.ts with a focus on error handling.\n\nReport each problem with its line number and a suggested fix. Do not change any file.' +
        `\n\nContents of src/app.ts:\n\`\`\`\n${app.trimEnd()}\n\`\`\``,
    ])
  })

  it('the log keeps which command and arguments produced the prompt in its source', async () => {
    mock.push({ text: 'ok' })
    await print('/review src/app.ts "error handling"')
    const prompt = loggedEvents().find((e) => e.type === 'user/message')!
    expect(prompt.data.source).toMatchObject({ kind: 'user', command: 'review', arguments: 'src/app.ts "error handling"' })
  })

  it('$ARGUMENTS keeps quotes and newlines exactly as typed, and a namespaced command answers to its short name', async () => {
    mock.push({ text: 'ok' })
    await print('/component Button "a \'primary\' button"\nwith a loading state')
    expect(prompts()[0]).toBe(
      'Create a React component named Button in src/components/Button.tsx.\n\n' +
        'What it should do: Button "a \'primary\' button"\nwith a loading state\n\nFollow the conventions of the existing components.\n',
    )
  })

  it('a namespaced command also answers to namespace:name', async () => {
    mock.push({ text: 'ok' })
    await print('/frontend:component Card')
    expect(prompts()[0]).toContain('Create a React component named Card in src/components/Card.tsx.')
  })

  it('naming a malformed command refuses the prompt with that file’s sentence instead of sending it as typed', async () => {
    const result = await print('/unclosed now')
    expect(result.code).not.toBe(0)
    expect(mock.requests).toHaveLength(0)
    // The three load problems at start, then the unclosed file's sentence as the warning and as the outcome.
    expect(result.problems).toBe(5)
  })

  it('a command without placeholders gets the arguments appended, and a file without frontmatter is all body', async () => {
    mock.push({ text: 'ok' })
    await print('/explain the parser')
    expect(prompts()[0]).toBe('# Explain the selected code\n\nExplain what the code does, step by step, for a newcomer to this repository.\n\nARGUMENTS: the parser')
  })

  it('a command saved with Windows line endings loads and expands', async () => {
    mock.push({ text: 'ok' })
    await print('/greet the team')
    expect(prompts()[0]).toBe('Say hello to the team.\r\n')
  })

  it('a built-in name wins over a workspace command of the same name', async () => {
    const result = await print('/model')
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/^The model is [\w.-]+; \/model <id> switches it\.\n$/)
    expect(mock.requests).toHaveLength(0)
  })

  it('an unknown /name goes to the model as typed', async () => {
    mock.push({ text: 'ok' })
    await print('/nosuch thing')
    expect(prompts()[0]).toBe('/nosuch thing')
  })

  it('a model a command names that Rein does not know is ignored with a notice, and the turn runs', async () => {
    mock.push({ text: 'ok' })
    const result = await print('/fix-issue 123 high')
    expect(result.code).toBe(0)
    expect(prompts()[0]).toContain('Fix issue #123 with priority high.')
    expect((mock.requests[0].body as { model: string }).model).not.toContain('claude')
  })

  it('a command’s model applies to its turn only, and the next prompt runs on the session’s model again', async () => {
    writeFileSync(join(ws.cwd, '.claude/commands/deep.md'), '---\nmodel: deepseek-v4-pro\n---\nThink hard about $ARGUMENTS\n')
    mock.push({ text: 'ok' }, { text: 'ok' })
    // A workspace command may pick a dearer model only in a trusted workspace (test/security/limit-attacks.test.ts).
    const rpc = new ReinRpc(['--cwd', ws.cwd, '--model', 'deepseek-v4-flash', '--trust-project'], envFor(mock, ws))
    try {
      await rpc.prompt('/deep caching')
      await rpc.prompt('plain')
    } finally {
      await rpc.close()
    }
    expect(mock.requests.map((r) => (r.body as { model: string }).model)).toEqual(['deepseek-v4-pro', 'deepseek-v4-flash'])
  })

  it('!`cmd` is refused in an untrusted workspace with one sentence, and nothing is sent to the model', async () => {
    const result = await print('/status')
    expect(result.code).not.toBe(0)
    expect(result.stderr).toContain('runs shell commands (!`…`), which workspace commands may do only in a trusted workspace')
    expect(mock.requests).toHaveLength(0)
  })

  it('!`cmd` runs in a trusted workspace when the command allows it, and its output is in the prompt', async () => {
    mock.push({ text: 'ok' })
    const result = await print('/status', '--trust-project')
    expect(result.stderr).toBe('')
    expect(prompts()[0]).toBe(
      '## Context\n\n- Marker: status-marker\n- Notes: notes: ship on Friday\n\nSummarize the state of the work in three bullet points.\n',
    )
  })

  it('a command’s allowed-tools pre-approve the tools the model calls in its turn, in a trusted workspace', async () => {
    mock.push({ toolCalls: [{ name: 'bash', arguments: { command: 'git diff --stat' } }] }, { text: 'ok' })
    await print('/review src/app.ts naming', '--trust-project')
    const result = String(messagesOf(mock, 1).filter((m) => m.role === 'tool').at(-1)!.content)
    expect(result).not.toMatch(/approval|permission/i)
  })

  it('!`cmd` that no rule allows is refused even in a trusted workspace when nothing can ask', async () => {
    writeFileSync(join(ws.cwd, '.claude/commands/touchy.md'), 'Before: !`touch made-by-command`\n')
    const result = await print('/touchy', '--trust-project')
    expect(result.stderr).toContain('/touchy was not run: its command `touch made-by-command` needs approval')
    expect(readdirSync(ws.cwd)).not.toContain('made-by-command')
    expect(mock.requests).toHaveLength(0)
  })

  it('an @path outside the workspace is refused like a read would be', async () => {
    writeFileSync(join(ws.base, 'secret.txt'), 'outside\n')
    writeFileSync(join(ws.cwd, '.claude/commands/leak.md'), 'Read @../secret.txt\n')
    const result = await print('/leak')
    expect(result.stderr).toContain('/leak was not run: it includes @../secret.txt')
    expect(mock.requests).toHaveLength(0)
  })

  it('an @path through a symlink that leads outside the workspace is refused', async () => {
    const { symlinkSync } = await import('node:fs')
    writeFileSync(join(ws.base, 'secret.txt'), 'outside\n')
    symlinkSync(join(ws.base, 'secret.txt'), join(ws.cwd, 'innocent.txt'))
    writeFileSync(join(ws.cwd, '.claude/commands/peek.md'), 'Summarize @innocent.txt\n')
    const result = await print('/peek')
    expect(result.stderr).toContain('/peek was not run: it includes @innocent.txt')
    expect(mock.requests).toHaveLength(0)
  })

  it('an @path a Read deny rule covers is refused, naming the rule', async () => {
    const { mkdirSync } = await import('node:fs')
    mkdirSync(join(ws.cwd, '.rein'), { recursive: true })
    writeFileSync(join(ws.cwd, '.rein/settings.json'), JSON.stringify({ permissions: { deny: ['Read(notes.txt)'] } }))
    writeFileSync(join(ws.cwd, '.claude/commands/notes.md'), 'Summarize @notes.txt\n')
    const result = await print('/notes')
    expect(result.stderr).toContain('/notes was not run: it includes @notes.txt, which is refused')
    expect(result.stderr).toContain('Read(notes.txt)')
    expect(mock.requests).toHaveLength(0)
  })

  it('a user-level command in ~/.claude/commands wins over a workspace command of the same name', async () => {
    const { mkdirSync } = await import('node:fs')
    mkdirSync(join(ws.userHome, '.claude/commands'), { recursive: true })
    writeFileSync(join(ws.userHome, '.claude/commands/explain.md'), 'My own explain: $ARGUMENTS\n')
    mock.push({ text: 'ok' })
    await print('/explain x')
    expect(prompts()[0]).toBe('My own explain: x\n')
  })
})
