import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { call as policyCall } from '../permissions/calls.js'
import type { ToolCallInfo } from '../../src/agent/extensions.js'
import { loadHooks } from '../../src/hooks/index.js'
import { claudeHooks, installScript, makeWorkspace, recordingContext, writeJson, type Workspace } from './support.js'

/** A workspace whose user settings hold `settings`, loaded into a hooks extension and a recording agent. */
async function setup(settings: object | ((ws: Workspace) => object), options: { codex?: unknown; maxStopContinuations?: number } = {}) {
  const ws = makeWorkspace()
  writeJson(join(ws.userHome, '.claude', 'settings.json'), typeof settings === 'function' ? settings(ws) : settings)
  if (options.codex) writeJson(join(ws.userHome, '.codex', 'hooks.json'), options.codex)
  const hooks = loadHooks({ cwd: ws.project, home: ws.home, userHome: ws.userHome, maxStopContinuations: options.maxStopContinuations })
  const { agent, session, recorded } = await recordingContext(ws.project)
  return { ws, hooks, ext: hooks.extension, agent, session, recorded }
}

/** Resolves once `done` holds: for hooks that run beside the call that started them. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 5))
}

function call(name: string, input: Record<string, unknown>): ToolCallInfo {
  return { ...policyCall(name, input), callId: 'call_1' }
}

const userPrompt = (text: string) => ({ type: 'user/message' as const, content: [{ type: 'text' as const, text }], source: { kind: 'user' } })

describe('the hooks extension', () => {
  it('gives each hook the Claude Code payload, with the tool named as Claude Code names it', async () => {
    const { ws, ext, agent, session } = await setup(claudeHooks('PreToolUse', 'cat > "$CLAUDE_PROJECT_DIR/payload.json"', 'Edit|Write'))
    await ext.preTool!(call('write', { file_path: 'src/a.ts', content: 'x' }), agent)
    const payload = JSON.parse(readFileSync(join(ws.project, 'payload.json'), 'utf8'))
    expect(payload).toEqual({
      session_id: session.id,
      transcript_path: null,
      cwd: ws.project,
      permission_mode: 'default',
      hook_event_name: 'PreToolUse',
      tool_name: 'Write',
      tool_input: { file_path: join(ws.project, 'src/a.ts'), content: 'x' },
      tool_use_id: 'call_1',
    })
  })

  it('adds turn_id and model to the payload of hooks from Codex files', async () => {
    const { ws, ext, agent, session } = await setup({}, { codex: claudeHooks('PreToolUse', 'cat > codex.json', '^Bash$') })
    await ext.preTool!(call('bash', { command: 'ls' }), agent)
    const payload = JSON.parse(readFileSync(join(ws.project, 'codex.json'), 'utf8'))
    expect(payload).toMatchObject({ tool_name: 'Bash', model: 'deepseek-v4-flash', turn_id: `${session.id}:1` })
  })

  it('runs a Codex-file hook whose matcher names Codex’s apply_patch for an edit, still presenting the tool as Edit', async () => {
    const { ws, ext, agent } = await setup(claudeHooks('PreToolUse', 'cat > claude.json', 'apply_patch'), {
      codex: claudeHooks('PreToolUse', 'cat > codex.json', '^apply_patch$'),
    })
    await ext.preTool!(call('edit', { file_path: 'a.ts', old_string: 'a', new_string: 'b' }), agent)
    expect(JSON.parse(readFileSync(join(ws.project, 'codex.json'), 'utf8'))).toMatchObject({ tool_name: 'Edit' })
    expect(existsSync(join(ws.project, 'claude.json'))).toBe(false)
  })

  it('logs every run as hook/invoked and hook/result with decision, exit code and stderr', async () => {
    const { ws, ext, agent, recorded } = await setup(claudeHooks('PreToolUse', 'echo "nope" >&2; exit 2', 'Bash'))
    await ext.preTool!(call('bash', { command: 'ls' }), agent)
    expect(recorded.events).toEqual([
      { type: 'hook/invoked', data: { id: expect.any(String), event: 'PreToolUse', handler: 'echo "nope" >&2; exit 2', sourceFile: join(ws.userHome, '.claude', 'settings.json') } },
      { type: 'hook/result', data: { id: recorded.events[0].data.id, event: 'PreToolUse', decision: 'block', exitCode: 2, durationMs: expect.any(Number), stderr: 'nope', reason: 'nope' } },
    ])
  })

  it('does not run hooks whose matcher does not match the tool', async () => {
    const { ext, agent, recorded } = await setup(claudeHooks('PreToolUse', 'exit 2', 'Bash'))
    expect(await ext.preTool!(call('read', { file_path: 'a' }), agent)).toBeUndefined()
    expect(recorded.events).toEqual([])
  })

  describe('PreToolUse', () => {
    it('exit 2 denies the call with stderr as the reason the model reads', async () => {
      const { ext, agent } = await setup(claudeHooks('PreToolUse', 'echo "Use trash instead of rm." >&2; exit 2', 'Bash'))
      expect(await ext.preTool!(call('bash', { command: 'rm x' }), agent)).toEqual({ action: 'deny', reason: 'Use trash instead of rm.' })
    })

    it('deny beats ask beats allow across hooks', async () => {
      const decide = (d: string) => `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"${d}","permissionDecisionReason":"${d} says so"}}'`
      const settings = { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: ['allow', 'ask', 'deny'].map((d) => ({ type: 'command', command: decide(d) })) }] } }
      const { ext, agent } = await setup(settings)
      expect(await ext.preTool!(call('bash', { command: 'ls' }), agent)).toEqual({ action: 'deny', reason: 'deny says so' })
      const withoutDeny = await setup({ hooks: { PreToolUse: [{ hooks: ['allow', 'ask'].map((d) => ({ type: 'command', command: decide(d) })) }] } })
      expect(await withoutDeny.ext.preTool!(call('bash', { command: 'ls' }), withoutDeny.agent)).toEqual({ action: 'ask', reason: 'ask says so' })
    })

    it('updatedInput becomes a rewrite of the arguments, several rewrites merging field by field in load order', async () => {
      const first = `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"ls -1","timeout":1000}}}'`
      const second = `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"timeout":5000}}}'`
      const { ext, agent } = await setup({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: first }, { type: 'command', command: second }] }] } })
      const decision = await ext.preTool!(call('bash', { command: 'ls', description: 'list' }), agent)
      expect(decision).toMatchObject({ action: 'rewrite' })
      expect(JSON.parse((decision as { arguments: string }).arguments)).toEqual({ command: 'ls -1', description: 'list', timeout: 5000 })
    })

    it('a crashing or timed-out hook never blocks: the call proceeds and the user is told', async () => {
      const settings = { hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 'exit 1' }, { type: 'command', command: 'sleep 120', timeout: 0.3 }] }] } }
      const { ext, agent, recorded } = await setup(settings)
      expect(await ext.preTool!(call('bash', { command: 'ls' }), agent)).toBeUndefined()
      expect(recorded.notices.map((n) => n.message)).toEqual([
        expect.stringMatching(/^The PreToolUse hook "exit 1" from .* exited with code 1; Rein went on without it\.$/),
        expect.stringMatching(/^The PreToolUse hook "sleep 120" from .* timed out after 0\.3 s and was stopped; Rein went on without it\.$/),
      ])
      expect(recorded.events.filter((e) => e.type === 'hook/result').map((e) => e.data.decision)).toEqual(['error', 'timeout'])
    })

    it('continue: false refuses the call and ends the turn as blocked, showing the stop reason', async () => {
      const { ext, agent, recorded } = await setup(claudeHooks('PreToolUse', `echo '{"continue":false,"stopReason":"Deploy freeze is on."}'`))
      expect(await ext.preTool!(call('bash', { command: 'ls' }), agent)).toEqual({ action: 'deny', reason: 'Deploy freeze is on.' })
      expect(recorded.stopped).toEqual(['Deploy freeze is on.'])
      expect(recorded.notices).toEqual([{ level: 'warning', message: 'Deploy freeze is on.' }])
    })
  })

  describe('PostToolUse', () => {
    it('decision block gives the model the reason beside the result', async () => {
      const { ext, agent } = await setup(claudeHooks('PostToolUse', `echo '{"decision":"block","reason":"Lint failed: missing semicolon."}'`, 'Edit'))
      expect(await ext.postTool!(call('edit', { file_path: 'a.ts' }), { content: [{ type: 'text', text: 'ok' }] }, agent)).toEqual({
        decision: { action: 'block', reason: 'Lint failed: missing semicolon.' },
      })
    })

    it('additionalContext becomes a context entry whose content is exactly the hook text', async () => {
      const text = '<system-reminder>\n  Remember the changelog.\n</system-reminder>'
      const output = JSON.stringify({ hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: text } })
      const { ws, ext, agent } = await setup(claudeHooks('PostToolUse', `printf '%s' '${output}'`))
      const outcome = await ext.postTool!(call('read', { file_path: 'a' }), { content: [{ type: 'text', text: 'x' }] }, agent)
      expect(outcome).toEqual({
        context: [{ content: [{ type: 'text', text }], source: { kind: 'hook', event: 'PostToolUse', command: `printf '%s' '${output}'`, file: join(ws.userHome, '.claude', 'settings.json') } }],
      })
    })

    it('a failed tool runs PostToolUseFailure hooks with the error, not PostToolUse hooks', async () => {
      const settings = {
        hooks: {
          PostToolUse: [{ hooks: [{ type: 'command', command: 'touch post-ran' }] }],
          PostToolUseFailure: [{ hooks: [{ type: 'command', command: 'cat > failure.json' }] }],
        },
      }
      const { ws, ext, agent } = await setup(settings)
      await ext.postTool!(call('bash', { command: 'false' }), { content: [{ type: 'text', text: 'Error: boom' }], isError: true }, agent)
      expect(existsSync(join(ws.project, 'post-ran'))).toBe(false)
      expect(JSON.parse(readFileSync(join(ws.project, 'failure.json'), 'utf8'))).toMatchObject({ hook_event_name: 'PostToolUseFailure', tool_name: 'Bash', error: 'Error: boom' })
    })

    it('hands tool_response with the output as Claude Code scripts read it', async () => {
      const { ws, ext, agent } = await setup(claudeHooks('PostToolUse', 'cat > post.json', 'Bash'))
      await ext.postTool!(call('bash', { command: 'echo hi' }), { content: [{ type: 'text', text: 'hi\n[exit code: 0]' }] }, agent)
      expect(JSON.parse(readFileSync(join(ws.project, 'post.json'), 'utf8')).tool_response).toEqual({
        content: 'hi\n[exit code: 0]',
        is_error: false,
        stdout: 'hi\n[exit code: 0]',
        stderr: '',
        interrupted: false,
      })
    })
  })

  describe('UserPromptSubmit', () => {
    it('runs only when a user message enters, not for steering', async () => {
      const { ext, agent, recorded } = await setup(claudeHooks('UserPromptSubmit', 'exit 2'))
      const steering = { type: 'steering/message' as const, content: [{ type: 'text' as const, text: 'go on' }], source: { kind: 'hook' } }
      expect(await ext.preStep!({ turn: 1, step: 2 }, [steering], agent)).toBeUndefined()
      expect(recorded.events).toEqual([])
    })

    it('a block rejects the prompt with the reason', async () => {
      const { ext, agent } = await setup((ws) => claudeHooks('UserPromptSubmit', `python3 ${installScript(ws.project, 'prompt-secret-guard.py')}`))
      const decision = await ext.preStep!({ turn: 1, step: 1 }, [userPrompt('my key is sk-abcdefghijklmnopqrstuv')], agent)
      expect(decision).toEqual({ action: 'reject', reason: 'Your prompt seems to contain an API key; remove it and try again.' })
    })

    it('plain stdout enters after the prompt as a context message with exactly that text', async () => {
      const { ext, agent } = await setup(claudeHooks('UserPromptSubmit', 'echo "Current branch: main"'))
      const prompt = userPrompt('fix the bug')
      const decision = await ext.preStep!({ turn: 1, step: 1 }, [prompt], agent)
      expect(decision).toEqual({
        action: 'enter',
        messages: [prompt, { type: 'context/message', content: [{ type: 'text', text: 'Current branch: main' }], source: expect.objectContaining({ kind: 'hook', event: 'UserPromptSubmit' }) }],
      })
    })
  })

  describe('Stop', () => {
    it('a block steers the turn on with exactly the reason, and tells the next run stop_hook_active', async () => {
      const { ws, ext, agent, recorded } = await setup(claudeHooks('Stop', `cat >> stop-payloads.jsonl; echo >> stop-payloads.jsonl; echo "Run the tests." >&2; exit 2`))
      const last = { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'Done.' }] }
      await ext.turnStopping!({ turn: 1, lastAssistant: last, continuations: 0 }, agent)
      await ext.turnStopping!({ turn: 1, lastAssistant: last, continuations: 1 }, agent)
      expect(recorded.steered.map((s) => s.content)).toEqual(['Run the tests.', 'Run the tests.'])
      expect(recorded.steered[0].source).toMatchObject({ kind: 'hook', event: 'Stop' })
      const payloads = readFileSync(join(ws.project, 'stop-payloads.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line))
      expect(payloads.map((p) => [p.stop_hook_active, p.last_assistant_message])).toEqual([[false, 'Done.'], [true, 'Done.']])
    })

    it('after three continuations with the same reason the turn ends anyway and the user is told which hook', async () => {
      const { ws, ext, agent, recorded } = await setup((ws) => claudeHooks('Stop', installScript(ws.project, 'stop-always-blocks.sh')))
      const script = join(ws.project, '.claude', 'hooks', 'stop-always-blocks.sh')
      for (let continuations = 0; continuations < 4; continuations++) {
        await ext.turnStopping!({ turn: 1, lastAssistant: null, continuations }, agent)
      }
      expect(recorded.steered).toHaveLength(3)
      const file = join(ws.userHome, '.claude', 'settings.json')
      expect(recorded.notices).toEqual([
        { level: 'warning', message: `Rein ended the turn although the Stop hook "${script}" from ${file} blocked it again, because it had given the same reason 3 times in a row.` },
      ])
    })

    it('after the configured number of continuations the turn ends anyway, even with changing reasons', async () => {
      const { ext, agent, recorded } = await setup(claudeHooks('Stop', 'echo "attempt $RANDOM$RANDOM" >&2; exit 2'), { maxStopContinuations: 2 })
      for (let continuations = 0; continuations < 3; continuations++) {
        await ext.turnStopping!({ turn: 1, lastAssistant: null, continuations }, agent)
      }
      expect(recorded.steered).toHaveLength(2)
      expect(recorded.notices[0].message).toMatch(/because it had already continued the turn 2 times in a row\.$/)
    })

    it('the count starts again in the next turn', async () => {
      const { ext, agent, recorded } = await setup(claudeHooks('Stop', 'echo same >&2; exit 2'))
      for (const turn of [1, 2]) {
        for (let continuations = 0; continuations < 3; continuations++) await ext.turnStopping!({ turn, lastAssistant: null, continuations }, agent)
      }
      expect(recorded.steered).toHaveLength(6)
      expect(recorded.notices).toEqual([])
    })

    it('a Stop hook that lets the turn end does nothing', async () => {
      const { ext, agent, recorded } = await setup(claudeHooks('Stop', 'exit 0'))
      await ext.turnStopping!({ turn: 1, lastAssistant: null, continuations: 0 }, agent)
      expect(recorded.steered).toEqual([])
    })
  })

  describe('session events', () => {
    it('SessionStart output is injected as context, with the source as matcher target', async () => {
      const settings = { hooks: { SessionStart: [{ matcher: 'startup', hooks: [{ type: 'command', command: 'echo "fresh session"' }] }, { matcher: 'resume', hooks: [{ type: 'command', command: 'echo "resumed"' }] }] } }
      const { ext, agent, recorded } = await setup(settings)
      await ext.sessionStart!(agent, 'startup')
      expect(recorded.injected).toEqual([{ content: [{ type: 'text', text: 'fresh session' }], source: expect.objectContaining({ kind: 'hook', event: 'SessionStart' }) }])
    })

    it('SessionEnd hooks get the reason', async () => {
      const { ws, ext, agent } = await setup(claudeHooks('SessionEnd', 'cat > end.json'))
      await ext.sessionEnd!(agent, 'exit')
      expect(JSON.parse(readFileSync(join(ws.project, 'end.json'), 'utf8'))).toMatchObject({ hook_event_name: 'SessionEnd', reason: 'exit' })
    })

    it('PreCompact hooks can block compaction, and get the trigger', async () => {
      const { ws, hooks, agent } = await setup(claudeHooks('PreCompact', 'cat > compact.json; echo "Not during a release." >&2; exit 2', 'auto'))
      expect(await hooks.runPreCompact('auto')).toEqual({})
      await hooks.extension.sessionStart!(agent, 'startup')
      expect(await hooks.runPreCompact('manual')).toEqual({})
      expect(await hooks.runPreCompact('auto')).toEqual({ blocked: 'Not during a release.' })
      expect(JSON.parse(readFileSync(join(ws.project, 'compact.json'), 'utf8'))).toMatchObject({ trigger: 'auto', custom_instructions: '' })
    })

    it('Notification hooks run when permission is asked', async () => {
      const { ws, hooks, agent, recorded } = await setup(claudeHooks('Notification', 'cat > notified.json', 'permission_prompt'))
      await hooks.extension.permissionAsked!({ call: call('bash', { command: 'make' }), reason: 'bash needs permission' }, agent)
      await until(() => recorded.events.some((e) => e.type === 'hook/result'))
      expect(JSON.parse(readFileSync(join(ws.project, 'notified.json'), 'utf8'))).toMatchObject({
        hook_event_name: 'Notification',
        notification_type: 'permission_prompt',
        message: 'Rein needs your permission to use Bash',
      })
    })
  })

  it('hooks never see Rein\'s API key, and see CLAUDE_PROJECT_DIR', async () => {
    const ws = makeWorkspace()
    writeJson(join(ws.userHome, '.claude', 'settings.json'), claudeHooks('SessionStart', 'echo "key=${DEEPSEEK_API_KEY:-none} dir=${CLAUDE_PROJECT_DIR}"'))
    const hooks = loadHooks({ cwd: ws.project, home: ws.home, userHome: ws.userHome, env: { ...process.env, DEEPSEEK_API_KEY: 'sk-secret' } })
    const { agent, recorded } = await recordingContext(ws.project)
    await hooks.extension.sessionStart!(agent, 'startup')
    expect(recorded.injected[0].content).toEqual([{ type: 'text', text: `key=none dir=${ws.project}` }])
  })
})
