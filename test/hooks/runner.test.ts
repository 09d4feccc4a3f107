import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runHookCommand } from '../../src/hooks/runner.js'
import { readVerdict } from '../../src/hooks/verdict.js'
import { FIXTURES } from './support.js'

const cwd = mkdtempSync(join(tmpdir(), 'rein-runner-'))

function run(command: string, input = '{}', timeoutMs = 10_000) {
  return runHookCommand({ command, cwd, env: { ...process.env, MARK: 'from-env' }, input, timeoutMs })
}

describe('running a hook process', () => {
  it('passes the payload on stdin and runs in the given directory with the given environment', async () => {
    const result = await run('read -r line; printf "%s|%s|%s" "$line" "$PWD" "$MARK"', '{"a":1}')
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, stdout: `{"a":1}|${cwd}|from-env` })
  })

  it('keeps stdout and stderr apart with the exit code', async () => {
    const result = await run('echo out; echo err >&2; exit 3')
    expect(result).toMatchObject({ exitCode: 3, stdout: 'out\n', stderr: 'err\n', signal: null })
  })

  // Both commands would hold the test far past vitest's timeout if the runner waited for them.
  it('stops a hook that runs past its timeout, with its children', async () => {
    const result = await run('sleep 120 & sleep 120; echo never', '{}', 300)
    expect(result).toMatchObject({ timedOut: true, stdout: '' })
  })

  it('does not wait for a background child that keeps the output pipe open after the hook exited', async () => {
    const result = await run('(sleep 120; echo late) & echo $! > child.pid; echo done', '{}', 600_000)
    process.kill(Number(readFileSync(join(cwd, 'child.pid'), 'utf8')), 'SIGKILL')
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, stdout: 'done\n' })
  })

  it('survives a hook that never reads its stdin', async () => {
    const result = await run('exit 0', 'x'.repeat(1_000_000))
    expect(result.exitCode).toBe(0)
  })

  it('reports a hook killed by a signal', async () => {
    const result = await run('kill -9 $$')
    expect(result).toMatchObject({ exitCode: null, signal: 'SIGKILL' })
  })

  it('reports a working directory that does not exist instead of throwing', async () => {
    const result = await runHookCommand({ command: 'true', cwd: join(cwd, 'missing'), env: process.env, input: '', timeoutMs: 1000 })
    expect(result.spawnError).toMatch(/ENOENT/)
  })

  it('caps a flood of output instead of holding it all', async () => {
    const result = await run('head -c 5000000 /dev/zero | tr "\\0" a')
    expect(result.exitCode).toBe(0)
    expect(result.stdout.length).toBe(1024 * 1024)
  })
})

describe('reading what a hook said', () => {
  const base = { signal: null, stderr: '', stdout: '', timedOut: false, durationMs: 1 } as const

  it('exit 2 blocks with stderr as the reason', () => {
    expect(readVerdict('PreToolUse', { ...base, exitCode: 2, stderr: 'no rm -rf\n' }, 1000)).toMatchObject({ block: 'no rm -rf', decision: 'block' })
  })

  it('exit 2 on SessionStart cannot block; stderr is shown to the user instead', () => {
    expect(readVerdict('SessionStart', { ...base, exitCode: 2, stderr: 'note' }, 1000)).toEqual({ context: [], systemMessage: 'note', decision: 'none' })
  })

  it('any other exit code is a non-blocking failure that quotes stderr', () => {
    const verdict = readVerdict('PreToolUse', { ...base, exitCode: 1, stderr: 'Traceback...\nKeyError' }, 1000)
    expect(verdict).toEqual({ context: [], failure: 'exited with code 1: Traceback...', decision: 'error' })
  })

  it('a timeout is a non-blocking failure naming the limit', () => {
    expect(readVerdict('Stop', { ...base, exitCode: null, timedOut: true }, 1500)).toMatchObject({ failure: 'timed out after 1.5 s and was stopped', decision: 'timeout' })
  })

  it('plain stdout is context for SessionStart and UserPromptSubmit only, without its final newline', () => {
    const run = { ...base, exitCode: 0, stdout: 'Branch: main\nDirty: no\n' }
    expect(readVerdict('UserPromptSubmit', run, 1000).context).toEqual(['Branch: main\nDirty: no'])
    expect(readVerdict('SessionStart', run, 1000).context).toEqual(['Branch: main\nDirty: no'])
    expect(readVerdict('PostToolUse', run, 1000)).toEqual({ context: [], decision: 'none' })
  })

  it('JSON output is read for decision, reason, continue, systemMessage and hookSpecificOutput', () => {
    const stdout = JSON.stringify({
      continue: true,
      systemMessage: 'formatted 2 files',
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'allow',
        permissionDecisionReason: 'safe',
        updatedInput: { command: 'ls -la' },
        additionalContext: 'ctx',
      },
    })
    expect(readVerdict('PreToolUse', { ...base, exitCode: 0, stdout }, 1000)).toEqual({
      context: ['ctx'],
      systemMessage: 'formatted 2 files',
      permission: 'allow',
      permissionReason: 'safe',
      updatedInput: { command: 'ls -la' },
      decision: 'allow',
    })
  })

  it('hookSpecificOutput for another event is ignored', () => {
    const stdout = JSON.stringify({ hookSpecificOutput: { hookEventName: 'PostToolUse', permissionDecision: 'deny' } })
    expect(readVerdict('PreToolUse', { ...base, exitCode: 0, stdout }, 1000)).toEqual({ context: [], decision: 'none' })
  })

  it('continue: false carries its stopReason; decision block carries its reason', () => {
    const stop = JSON.stringify({ continue: false, stopReason: 'Build broken; fix it by hand.' })
    expect(readVerdict('PostToolUse', { ...base, exitCode: 0, stdout: stop }, 1000)).toMatchObject({ stop: 'Build broken; fix it by hand.', decision: 'stop' })
    const block = JSON.stringify({ decision: 'block', reason: 'Run the tests first.' })
    expect(readVerdict('Stop', { ...base, exitCode: 0, stdout: block }, 1000)).toMatchObject({ block: 'Run the tests first.', decision: 'block' })
  })

  it('the older PreToolUse "approve" decision is an allow', () => {
    const stdout = JSON.stringify({ decision: 'approve', reason: 'ok' })
    expect(readVerdict('PreToolUse', { ...base, exitCode: 0, stdout }, 1000)).toMatchObject({ permission: 'allow', permissionReason: 'ok' })
  })

  it('output that starts like JSON but is not is a failure, never a decision', async () => {
    const result = await run(`bash ${join(FIXTURES, 'garbage.sh')}`)
    const verdict = readVerdict('PreToolUse', result, 1000)
    expect(verdict).toEqual({ context: [], failure: 'printed output that starts with "{" but is not valid JSON, so it was ignored', decision: 'error' })
  })
})
