import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runCli, type CliResult } from '../support/cli.js'
import { startMockModel, type MockModel, type MockResponse } from '../support/mock-model.js'
import { claudeHooks, installScript, makeWorkspace, writeJson, type Workspace } from './support.js'

/** Runs the built CLI as a user would, with HOME, REIN_HOME and the model pointed at the test's own places. */
function rein(ws: Workspace, args: string[], baseUrl = 'http://127.0.0.1:9'): Promise<CliResult> {
  return runCli(args, {
    cwd: ws.project,
    env: { PATH: process.env.PATH, HOME: ws.userHome, REIN_HOME: ws.home, DEEPSEEK_BASE_URL: baseUrl, DEEPSEEK_API_KEY: 'test-key' },
  })
}

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

async function prompt(ws: Workspace, script: MockResponse[], text: string, extra: string[] = []): Promise<CliResult> {
  mock = await startMockModel({ script })
  return rein(ws, ['-p', text, ...extra], mock.url)
}

/** Every event of every session in the workspace, in file order. */
function logEvents(ws: Workspace): { type: string; data: Record<string, unknown> }[] {
  const root = join(ws.home, 'sessions')
  if (!existsSync(root)) return []
  const events: { type: string; data: Record<string, unknown> }[] = []
  for (const dir of readdirSync(root)) {
    for (const file of readdirSync(join(root, dir)).filter((name) => name.endsWith('.jsonl'))) {
      const lines = readFileSync(join(root, dir, file), 'utf8').trim().split('\n').slice(1)
      events.push(...lines.map((line) => JSON.parse(line)))
    }
  }
  return events
}

type ChatMessage = { role: string; content: unknown; tool_call_id?: string }
const messagesOf = (index: number): ChatMessage[] => (mock!.requests[index].body as { messages: ChatMessage[] }).messages
const textOf = (content: unknown): string =>
  typeof content === 'string' ? content : (content as { type: string; text?: string }[]).map((part) => part.text ?? '').join('')
const userTexts = (index: number): string[] => messagesOf(index).filter((m) => m.role === 'user').map((m) => textOf(m.content))

function userSettings(ws: Workspace, settings: unknown): void {
  writeJson(join(ws.userHome, '.claude', 'settings.json'), settings)
}

describe('hooks end to end through rein -p', () => {
  it('a Stop hook that blocks continues the turn, and the next request ends with exactly its reason', async () => {
    const ws = makeWorkspace()
    const script = installScript(ws.project, 'stop-until-marker.py')
    userSettings(ws, claudeHooks('Stop', `python3 "${script}"`))
    const reason = 'The tests have not passed yet. Run them and fix what fails before you stop.'
    const run = await prompt(
      ws,
      [
        { text: 'All done.' },
        { toolCalls: [{ name: 'bash', arguments: { command: 'touch tests-passed' } }] },
        { text: 'Tests pass now.' },
      ],
      'fix the tests',
      ['--allow', 'Bash(touch tests-passed)'],
    )
    expect(run.code).toBe(0)
    expect(mock!.requests).toHaveLength(3)
    const second = messagesOf(1)
    const lastUser = second.filter((m) => m.role === 'user').at(-1)!
    expect(textOf(lastUser.content)).toBe(reason)
    expect(second.at(-1)).toBe(lastUser)
    expect(existsSync(join(ws.project, 'tests-passed'))).toBe(true)
    const events = logEvents(ws)
    expect(events.filter((e) => e.type === 'steering/message').map((e) => e.data)).toEqual([
      expect.objectContaining({ content: [{ type: 'text', text: reason }], source: expect.objectContaining({ kind: 'hook', event: 'Stop' }) }),
    ])
    expect(events.filter((e) => e.type === 'hook/result').map((e) => e.data.decision)).toEqual(['block', 'none'])
    expect(events.filter((e) => e.type === 'turn/end').map((e) => e.data.reason)).toEqual(['completed'])
  })

  it('a Stop hook that always blocks is overridden after three identical reasons, and the user is told', async () => {
    const ws = makeWorkspace()
    const script = installScript(ws.project, 'stop-always-blocks.sh')
    userSettings(ws, claudeHooks('Stop', script))
    const run = await prompt(ws, [{ text: 'Done.', repeat: true }], 'lint it')
    expect(mock!.requests).toHaveLength(4)
    expect(run.stderr).toContain(`Rein ended the turn although the Stop hook "${script}"`)
    expect(run.stderr).toContain('same reason 3 times in a row')
    const events = logEvents(ws)
    expect(events.filter((e) => e.type === 'steering/message')).toHaveLength(3)
    expect(events.filter((e) => e.type === 'turn/end').map((e) => e.data.reason)).toEqual(['completed'])
  })

  it('the Stop-continuation bound is a setting: stopHooks.maxIdenticalReasons 1 overrides the first repeat', async () => {
    const ws = makeWorkspace()
    const script = installScript(ws.project, 'stop-always-blocks.sh')
    // Rein's own settings file takes the same hooks format, plus Rein's settings.
    writeJson(join(ws.home, 'settings.json'), { ...(claudeHooks('Stop', script) as object), stopHooks: { maxIdenticalReasons: 1 } })
    const run = await prompt(ws, [{ text: 'Done.', repeat: true }], 'lint it')
    expect(mock!.requests).toHaveLength(2)
    expect(run.stderr).toContain('same reason 1 times in a row')
    expect(logEvents(ws).filter((e) => e.type === 'steering/message')).toHaveLength(1)
  })

  it('PreToolUse guards in both formats deny calls with their reasons: rm -rf (bash, exit 2) and git push (Codex, JSON)', async () => {
    const ws = makeWorkspace()
    mkdirSync(join(ws.project, 'build'))
    userSettings(ws, claudeHooks('PreToolUse', `bash "${installScript(ws.project, 'block-rm-rf.sh')}"`, 'Bash'))
    writeJson(join(ws.userHome, '.codex', 'hooks.json'), claudeHooks('PreToolUse', `python3 "${installScript(ws.project, 'codex-deny-push.py')}"`, '^Bash$'))
    const calls = [
      { name: 'bash', arguments: { command: 'rm -rf build' } },
      { name: 'bash', arguments: { command: 'git push origin main' } },
    ]
    await prompt(ws, [{ toolCalls: calls }, { text: 'I will leave both alone.' }], 'clean up and ship', ['--permission-mode', 'bypass'])
    expect(existsSync(join(ws.project, 'build'))).toBe(true)
    const results = messagesOf(1).filter((m) => m.role === 'tool').map((m) => textOf(m.content))
    expect(results[0]).toContain('Blocked: rm -rf is not allowed in this repository. Delete files one by one instead.')
    expect(results[1]).toContain('Pushing is done by CI, not by the agent.')
    expect(logEvents(ws).filter((e) => e.type === 'tool/result').map((e) => e.data.isError)).toEqual([true, true])
  })

  it('the formatter after Write fixes the file on disk', async () => {
    const ws = makeWorkspace()
    const log = join(ws.root, 'format.log')
    userSettings(ws, claudeHooks('PostToolUse', `HOOK_LOG="${log}" node "${installScript(ws.project, 'format-after-edit.mjs')}"`, 'Edit|Write'))
    await prompt(
      ws,
      [{ toolCalls: [{ name: 'write', arguments: { file_path: 'src/a.ts', content: 'const a = 1;   \nconst b = 2;\t\n\n\n' } }] }, { text: 'written' }],
      'write a.ts',
      ['--permission-mode', 'accept-edits'],
    )
    expect(readFileSync(join(ws.project, 'src', 'a.ts'), 'utf8')).toBe('const a = 1;\nconst b = 2;\n')
    expect(readFileSync(log, 'utf8')).toBe(`formatted ${join(ws.project, 'src', 'a.ts')}\n`)
  })

  it('a PreToolUse rewrite runs the command with the updated input, and the log records it', async () => {
    const ws = makeWorkspace()
    writeJson(join(ws.project, 'package.json'), { name: 'x', version: '1.0.0', scripts: { test: 'echo ran-the-tests' } })
    userSettings(ws, claudeHooks('PreToolUse', `node "${installScript(ws.project, 'quiet-npm.mjs')}"`, 'Bash'))
    await prompt(ws, [{ toolCalls: [{ name: 'bash', arguments: { command: 'npm test' } }] }, { text: 'ok' }], 'test', ['--permission-mode', 'bypass'])
    const call = logEvents(ws).find((e) => e.type === 'tool/call')!
    expect(JSON.parse((call.data.rewritten as { arguments: string }).arguments)).toEqual({ command: 'npm test --silent' })
    const output = textOf(messagesOf(1).find((m) => m.role === 'tool')!.content)
    expect(output).toContain('ran-the-tests')
    expect(output).not.toContain('> x@1.0.0 test')
  })

  it('context injectors add their text verbatim: SessionStart output and UserPromptSubmit additionalContext', async () => {
    const ws = makeWorkspace()
    writeFileSync(join(ws.project, 'NOTES.md'), 'Use pnpm, not npm.\n')
    const injector = installScript(ws.project, 'inject-context.sh')
    const guard = installScript(ws.project, 'prompt-secret-guard.py')
    userSettings(ws, {
      hooks: {
        SessionStart: [{ matcher: 'startup', hooks: [{ type: 'command', command: injector }] }],
        UserPromptSubmit: [{ hooks: [{ type: 'command', command: `python3 ${guard}` }] }],
      },
    })
    await prompt(ws, [{ text: 'ok' }], 'add a dependency')
    const texts = userTexts(0)
    expect(texts).toContain('Team notes:\nUse pnpm, not npm.')
    const at = texts.indexOf('add a dependency')
    expect(texts[at + 1]).toBe('Prompt checked: no secrets found.')
  })

  it('a UserPromptSubmit block rejects the prompt: no request is sent and the user reads the reason', async () => {
    const ws = makeWorkspace()
    userSettings(ws, claudeHooks('UserPromptSubmit', `python3 ${installScript(ws.project, 'prompt-secret-guard.py')}`))
    const run = await prompt(ws, [{ text: 'never' }], 'deploy with sk-abcdefghijklmnopqrstuvwx')
    expect(mock!.requests).toHaveLength(0)
    expect(run.code).not.toBe(0)
    expect(run.stderr).toContain('Your prompt seems to contain an API key; remove it and try again.')
    expect(logEvents(ws).filter((e) => e.type === 'turn/end').map((e) => e.data.reason)).toEqual(['blocked'])
  })

  it('a slow hook is stopped at its timeout, and garbage output and a crash are reported; the tool still runs', async () => {
    const ws = makeWorkspace()
    const slow = installScript(ws.project, 'slow-hook.sh')
    const garbage = installScript(ws.project, 'garbage.sh')
    const crashes = installScript(ws.project, 'crashes.py')
    userSettings(ws, {
      hooks: {
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: slow, timeout: 1 }, { type: 'command', command: garbage }] }],
        PostToolUse: [{ hooks: [{ type: 'command', command: `python3 ${crashes}` }] }],
      },
    })
    const run = await prompt(ws, [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo made > out.txt' } }] }, { text: 'ok' }], 'go', ['--permission-mode', 'bypass'])
    expect(run.code).toBe(0)
    expect(readFileSync(join(ws.project, 'out.txt'), 'utf8')).toBe('made\n')
    expect(run.stderr).toMatch(/slow-hook\.sh" from .* timed out after 1 s and was stopped/)
    expect(run.stderr).toMatch(/garbage\.sh" from .* is not valid JSON/)
    expect(run.stderr).toMatch(/crashes\.py" from .* exited with code 1: Traceback/)
    const decisions = logEvents(ws).filter((e) => e.type === 'hook/result').map((e) => e.data.decision)
    expect(decisions).toEqual(['timeout', 'error', 'error'])
  })
})

describe('trusting project hooks end to end', () => {
  it('an untrusted project hook does not run; after rein hooks trust it does; changing it untrusts it', async () => {
    const ws = makeWorkspace()
    const settings = join(ws.project, '.claude', 'settings.json')
    writeJson(settings, claudeHooks('SessionStart', 'touch "$CLAUDE_PROJECT_DIR/ran-1"'))

    const first = await prompt(ws, [{ text: 'ok' }], 'hi')
    expect(existsSync(join(ws.project, 'ran-1'))).toBe(false)
    expect(first.stderr).toContain('SessionStart hook running "touch \\"$CLAUDE_PROJECT_DIR/ran-1\\""')
    expect(first.stderr).toContain(`Review and trust it with \`rein trust ${ws.project}\`.`)
    expect(first.stderr.split('\n').filter((line) => line.includes('rein trust'))).toHaveLength(1)
    await mock!.close()

    const listed = await rein(ws, ['hooks', 'list'])
    expect(listed.stdout).toContain('SessionStart [*] touch "$CLAUDE_PROJECT_DIR/ran-1"\n    .claude/settings.json (project file, NOT trusted')

    const trusted = await rein(ws, ['hooks', 'trust'])
    expect(trusted).toMatchObject({ code: 0 })
    expect(trusted.stdout).toContain('Trusted 1 project hook:')

    const second = await prompt(ws, [{ text: 'ok' }], 'hi')
    expect(existsSync(join(ws.project, 'ran-1'))).toBe(true)
    expect(second.stderr).not.toContain('rein trust')
    await mock!.close()

    writeJson(settings, claudeHooks('SessionStart', 'touch "$CLAUDE_PROJECT_DIR/ran-2"'))
    const third = await prompt(ws, [{ text: 'ok' }], 'hi')
    expect(existsSync(join(ws.project, 'ran-2'))).toBe(false)
    expect(third.stderr).toContain('rein trust')
  })

  it('--trust-project-hooks, the old spelling of --trust-project, runs project hooks for that run only', async () => {
    const ws = makeWorkspace()
    writeJson(join(ws.project, '.claude', 'settings.json'), claudeHooks('SessionStart', 'touch "$CLAUDE_PROJECT_DIR/ran"'))
    await prompt(ws, [{ text: 'ok' }], 'hi', ['--trust-project-hooks'])
    expect(existsSync(join(ws.project, 'ran'))).toBe(true)
    expect((await rein(ws, ['hooks', 'list', '--json'])).stdout).toContain('"trust": "untrusted"')
  })

  it('after rein trust, project hooks run and are listed as trusted until one changes', async () => {
    const ws = makeWorkspace()
    const settings = join(ws.project, '.claude', 'settings.json')
    writeJson(settings, claudeHooks('SessionStart', 'touch "$CLAUDE_PROJECT_DIR/ran"'))
    const trusted = await rein(ws, ['trust'])
    expect(trusted.code).toBe(0)
    expect(trusted.stdout).toContain('SessionStart hook running "touch \\"$CLAUDE_PROJECT_DIR/ran\\"" (' + settings + ')')
    const run = await prompt(ws, [{ text: 'ok' }], 'hi')
    expect(existsSync(join(ws.project, 'ran'))).toBe(true)
    expect(run.stderr).not.toContain('rein trust')
    expect((await rein(ws, ['hooks', 'list', '--json'])).stdout).toContain('"trust": "trusted"')
    writeJson(settings, claudeHooks('SessionStart', 'touch "$CLAUDE_PROJECT_DIR/ran-again"'))
    expect((await rein(ws, ['hooks', 'list', '--json'])).stdout).toContain('"trust": "untrusted"')
  })

  it('rein hooks list reports a malformed file by name and still lists the others', async () => {
    const ws = makeWorkspace()
    mkdirSync(join(ws.project, '.codex'), { recursive: true })
    writeFileSync(join(ws.project, '.codex', 'hooks.json'), '{"hooks": ')
    userSettings(ws, claudeHooks('Stop', 'echo user-hook'))
    const listed = await rein(ws, ['hooks', 'list'])
    expect(listed.code).toBe(0)
    expect(listed.stderr).toMatch(/Skipped \.codex\/hooks\.json: it is not valid JSON/)
    expect(listed.stdout).toContain('Stop [*] echo user-hook')
  })
})
