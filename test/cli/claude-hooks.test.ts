import { afterEach, describe, expect, it } from 'vitest'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'

/** Hooks written for Claude Code, run by `rein -p`: a Stop hook that parses `transcript_path`, and PermissionRequest hooks. */
const FIXTURES = resolve(import.meta.dirname, '../fixtures/claude-code')

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

/** Copies a fixture script into the user's `~/.claude/hooks/` and names it in `~/.claude/settings.json` for `event`. */
function userHook(home: string, event: string, script: string, matcher?: string): string {
  const target = join(home, '.claude', 'hooks', script)
  mkdirSync(join(home, '.claude', 'hooks'), { recursive: true })
  cpSync(join(FIXTURES, script), target)
  const entry = { ...(matcher ? { matcher } : {}), hooks: [{ type: 'command', command: target }] }
  writeFileSync(join(home, '.claude', 'settings.json'), JSON.stringify({ hooks: { [event]: [entry] } }))
  return target
}

/** The names in a folder that must exist. */
function entries(dir: string): string[] {
  if (!existsSync(dir)) throw new Error(`${dir} does not exist`)
  return readdirSync(dir)
}

type Message = { role: string; content: unknown }
// `any` on purpose: transcript lines and hook payloads are arbitrary JSON inspected field by field.
type Line = Record<string, any>
const lastUserText = (messages: Message[]): string => {
  const last = messages.filter((m) => m.role === 'user').at(-1)
  return typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content)
}

describe('a Stop hook that reads transcript_path as a Claude Code transcript', () => {
  it('blocks until the last assistant message in the transcript holds the promise, then lets the turn end', async () => {
    const box = sandbox()
    userHook(box.home, 'Stop', 'stop-until-promise.sh')
    mock = await startMockModel({ script: [{ text: 'I started on it.' }, { text: 'All finished. <promise>DONE</promise>' }] })
    const r = await runCli(['-p', 'do the work'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe('All finished. <promise>DONE</promise>\n')
    // The first stop was blocked with the hook's reason, which became the next request's last user message.
    expect(mock.requests).toHaveLength(2)
    const second = (mock.requests[1].body as { messages: Message[] }).messages
    expect(lastUserText(second)).toContain('Not done yet: keep working')
  }, 60_000)

  it('the transcript is JSONL of user and assistant entries chained by uuid, matching the log at the last hook run', async () => {
    const box = sandbox()
    userHook(box.home, 'Stop', 'stop-until-promise.sh')
    writeFileSync(join(box.cwd, 'a.txt'), 'alpha\n')
    mock = await startMockModel({ script: [{ toolCalls: [{ name: 'read', arguments: { file_path: 'a.txt' } }] }, { text: 'It says alpha. <promise>DONE</promise>' }] })
    const r = await runCli(['-p', 'what is in a.txt?'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.code, r.stderr).toBe(0)
    const sessions = join(box.home, 'sessions')
    const [dir] = entries(sessions)
    const [name] = entries(join(sessions, dir, 'claude-transcripts'))
    expect(name).toMatch(/\.jsonl$/)
    const lines = readFileSync(join(sessions, dir, 'claude-transcripts', name), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Line)
    // Context Rein injected (the session-facts reminder) is a user entry marked isMeta, as Claude Code marks its own.
    const spoken = lines.filter((l) => !l.isMeta)
    expect(lines.filter((l) => l.isMeta).every((l) => l.type === 'user')).toBe(true)
    expect(spoken.map((l) => l.type)).toEqual(['user', 'assistant', 'user', 'assistant'])
    const sessionId = name.replace(/\.jsonl$/, '')
    lines.forEach((line, i) => {
      expect(line).toMatchObject({ sessionId, cwd: box.cwd, isSidechain: false, parentUuid: i === 0 ? null : lines[i - 1].uuid })
      expect(new Date(line.timestamp).toISOString()).toBe(line.timestamp)
    })
    expect(spoken[0].message).toEqual({ role: 'user', content: 'what is in a.txt?' })
    expect(spoken[1].message.content).toEqual([{ type: 'tool_use', id: expect.any(String), name: 'Read', input: { file_path: 'a.txt' } }])
    expect(spoken[2].message.content[0]).toMatchObject({ type: 'tool_result', tool_use_id: spoken[1].message.content[0].id, is_error: false })
    expect(spoken[2].message.content[0].content).toContain('alpha')
    expect(spoken[3].message).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: 'It says alpha. <promise>DONE</promise>' }], stop_reason: 'end_turn' })
  }, 60_000)
})

describe('PermissionRequest hooks answer where Rein would ask a person', () => {
  it('an allow runs the call and a deny refuses it with the hook message; the hook sees Claude Code names', async () => {
    const box = sandbox()
    const hook = userHook(box.home, 'PermissionRequest', 'permission-request.sh', 'Bash')
    mock = await startMockModel({
      script: [
        { toolCalls: [{ name: 'bash', arguments: { command: 'echo hi > allowed.txt' } }, { name: 'bash', arguments: { command: 'touch refused.txt' } }] },
        { text: 'One ran, one was refused.' },
      ],
    })
    const r = await runCli(['-p', 'make two files', '--output-format', 'json'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.code, r.stderr).toBe(0)
    expect(readFileSync(join(box.cwd, 'allowed.txt'), 'utf8')).toBe('hi\n')
    expect(existsSync(join(box.cwd, 'refused.txt'))).toBe(false)
    const toolMessages = (mock.requests[1].body as { messages: (Message & { tool_call_id?: string })[] }).messages.filter((m) => m.role === 'tool')
    expect(JSON.stringify(toolMessages.at(-1)?.content)).toContain('Only echo may run here.')
    // Nothing was left for a person, so nothing was refused for want of one.
    expect(JSON.parse(r.stdout).permission_denials).toEqual([])
    const payloads = readFileSync(join(hook, '..', 'permission-requests.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Line)
    expect(payloads).toHaveLength(2)
    expect(payloads[0]).toMatchObject({
      hook_event_name: 'PermissionRequest',
      tool_name: 'Bash',
      tool_input: { command: 'echo hi > allowed.txt' },
      permission_mode: 'default',
      transcript_path: expect.stringMatching(/claude-transcripts\/.+\.jsonl$/),
    })
  }, 60_000)

  it('a call no PermissionRequest hook decides is refused as before in one-shot mode', async () => {
    const box = sandbox()
    userHook(box.home, 'PermissionRequest', 'permission-request.sh', 'Write')
    mock = await startMockModel({ script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'touch x.txt' } }] }, { text: 'Refused.' }] })
    const r = await runCli(['-p', 'touch x', '--output-format', 'json'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.code, r.stderr).toBe(0)
    expect(existsSync(join(box.cwd, 'x.txt'))).toBe(false)
    expect(JSON.parse(r.stdout).permission_denials).toEqual([expect.objectContaining({ tool_name: 'Bash' })])
  }, 60_000)

  it('an allow with updatedInput runs the changed call, updatedPermissions add standing rules, and bad ones are refused or ignored in one sentence', async () => {
    const box = sandbox()
    const log = join(box.root, 'asked.jsonl')
    const script = join(box.root, 'rewrite.sh')
    // Writes: allowed with new content, and "Write" allowed from now on in the local settings file. Bash: an
    // updatedInput that is no command, and an update naming a destination that does not exist.
    writeFileSync(
      script,
      [
        '#!/bin/bash',
        'INPUT=$(cat)',
        `echo "$INPUT" >> ${log}`,
        'if [ "$(echo "$INPUT" | jq -r .tool_name)" = Write ]; then',
        `  echo "$INPUT" | jq -c '{hookSpecificOutput: {hookEventName: "PermissionRequest", decision: {behavior: "allow", updatedInput: (.tool_input + {content: "rewritten"}), updatedPermissions: [{type: "addRules", rules: [{toolName: "Write"}], behavior: "allow", destination: "localSettings"}]}}}'`,
        'else',
        `  echo '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow", "updatedInput": {"command": 42}, "updatedPermissions": [{"type": "addRules", "rules": [{"toolName": "Bash"}], "behavior": "allow", "destination": "everywhere"}]}}}'`,
        'fi',
        '',
      ].join('\n'),
      { mode: 0o755 },
    )
    mock = await startMockModel({
      script: [
        { toolCalls: [{ name: 'write', arguments: { file_path: 'a.txt', content: 'from the model' } }] },
        { toolCalls: [{ name: 'write', arguments: { file_path: 'b.txt', content: 'second' } }, { name: 'bash', arguments: { command: 'touch c.txt' } }] },
        { text: 'Done.' },
      ],
    })
    const settings = JSON.stringify({ hooks: { PermissionRequest: [{ hooks: [{ type: 'command', command: script }] }] } })
    const r = await runCli(['-p', 'write files', '--output-format', 'json', '--settings', settings], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.code, r.stderr).toBe(0)
    expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('rewritten')
    // The rule held at once: the second write was not asked about, so the model's content stands.
    expect(readFileSync(join(box.cwd, 'b.txt'), 'utf8')).toBe('second')
    const asked = readFileSync(log, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as Line).tool_name)
    expect(asked).toEqual(['Write', 'Bash'])
    expect(JSON.parse(readFileSync(join(box.cwd, '.rein', 'settings.local.json'), 'utf8'))).toEqual({ permissions: { allow: ['Write'] } })
    expect(existsSync(join(box.cwd, 'c.txt'))).toBe(false)
    const toolMessages = (mock.requests[2].body as { messages: Message[] }).messages.filter((m) => m.role === 'tool')
    expect(String(toolMessages.at(-1)?.content)).toMatch(/command.*\(The arguments were changed by the PermissionRequest hook ".+rewrite\.sh" from <--settings>\.\)$/)
    expect(r.stderr).toContain(
      `rein: The addRules update from the PermissionRequest hook "${script}" from <--settings> names the destination "everywhere", which is none of session, cliArg, localSettings, projectSettings, userSettings, so it was ignored.`,
    )
  }, 60_000)
})
