import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { PermissionRequest } from '../../src/agent/types.js'
import { describeCall, describeResult, permissionQuestion, plainLine, plainText, toolLookup, TITLE_MAX } from '../../src/frontend/render/index.js'
import { builtinTools } from '../../src/tools/registry.js'
import type { AnyTool } from '../../src/tools/tool.js'

const cwd = '/work/project'
const tools = toolLookup()
const title = (name: string, args: unknown) => describeCall(tools(name), name, typeof args === 'string' ? args : JSON.stringify(args), cwd)
// Any C0/C1 control but newline, DEL, or a bidirectional override: none may reach a screen.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/

describe('each built-in tool titles its call from its arguments', () => {
  it('names the file, the command, the pattern, the address and the job', () => {
    expect(title('read', { file_path: 'src/a.ts', offset: 3 })).toMatchObject({ title: 'Read src/a.ts', subject: 'src/a.ts', kind: 'read', locations: [{ path: '/work/project/src/a.ts', line: 3 }] })
    expect(title('edit', { file_path: '/work/project/x.ts' })).toMatchObject({ title: 'Edit x.ts', kind: 'edit' })
    expect(title('write', { file_path: '/elsewhere/y' }).title).toBe('Write /elsewhere/y')
    expect(title('bash', { command: 'npm test' })).toMatchObject({ title: 'npm test', subject: 'npm test', command: true, kind: 'execute' })
    expect(title('grep', { pattern: 'foo', path: 'src' }).title).toBe('Search for "foo" in src')
    expect(title('glob', { pattern: '**/*.ts' }).title).toBe('Find **/*.ts')
    expect(title('ls', {}).title).toBe('List .')
    expect(title('web_fetch', { url: 'https://example.com/a' }).title).toBe('Fetch https://example.com/a')
    expect(title('skill', { name: 'pdf' }).title).toBe('Skill pdf')
    expect(title('task', { subagent_type: 'explore', description: 'find the parser' }).title).toBe('Subagent explore: find the parser')
    expect(title('todo_write', { todos: [{}, {}] }).title).toBe('Update the todo list (2 items)')
    expect(title('job_output', { id: 'j1' }).title).toBe('Output of job j1')
    expect(title('job_kill', { id: 'j1' }).title).toBe('Stop job j1')
    expect(title('exit_plan_mode', { plan: '# p' }).title).toBe('Present the plan')
  })

  it('gives an MCP tool and an unknown name a generic display from the arguments', () => {
    expect(title('mcp__github__create_issue', { title: 'Crash', body: 'x' })).toMatchObject({ title: 'github: create_issue Crash', subject: 'Crash', kind: 'other', command: false })
    expect(title('mcp__db__query', { query: 'select 1', limit: 3 }).title).toBe('db: query select 1')
    expect(title('nonesuch', {}).title).toBe('nonesuch')
    expect(title('nonesuch', 'not json at all').subject).toBe('not json at all')
  })

  it('survives every tool given missing fields, wrong types, arrays and arguments that are not JSON', () => {
    for (const tool of builtinTools() as AnyTool[]) {
      for (const args of ['{}', '[]', 'null', '{"file_path": 7, "command": [], "pattern": {}, "url": null, "todos": 3}', '{"file_path": ']) {
        const shown = describeCall(tool, tool.name, args, cwd)
        expect(shown.title.length).toBeGreaterThan(0)
        expect(shown.title).not.toMatch(CONTROL)
      }
    }
    expect(title('read', '{"file_path": ').title).toBe('Read')
    expect(title('read', '{"file_path": ').subject).toBe('{"file_path": ')
  })

  it('never carries escape sequences or control characters, and cuts huge arguments', () => {
    const hostile = 'rm -rf x\x1b]0;pwned\x07\x1b[2J\x1b[31mred\u202eevil\r\x00\x9b'
    for (const [name, key] of [['bash', 'command'], ['read', 'file_path'], ['grep', 'pattern'], ['web_fetch', 'url'], ['mcp__s__t', 'query']] as const) {
      const shown = title(name, { [key]: hostile })
      expect(shown.title).not.toMatch(CONTROL)
      expect(shown.subject).not.toMatch(CONTROL)
      expect(shown.title).not.toContain('pwned')
    }
    const huge = title('bash', { command: 'x'.repeat(1_000_000) })
    expect(Array.from(huge.title).length).toBe(TITLE_MAX)
    expect(huge.title.endsWith('…')).toBe(true)
    expect(title('bash', { command: 'one\ntwo' }).title).toBe('one …')
  })

  it('does not break a surface when a display throws', () => {
    const broken = { readOnly: true, category: 'read' as const, kind: 'read' as const, display: { subject: () => { throw new Error('bug') } } }
    expect(describeCall(broken, 'broken', '{"a":"b"}', cwd).title).toBe('broken')
  })
})

describe('each built-in tool sums up its result', () => {
  const sum = (name: string, result: { text?: string; isError?: boolean; meta?: unknown }) =>
    describeResult(tools(name), { content: [{ type: 'text', text: result.text ?? '' }], isError: result.isError ?? false, meta: result.meta as never })

  it('in its own words, with the diff for edits and the output tail for commands', () => {
    expect(sum('read', { meta: { path: '/a', lines: 42 } }).summary).toBe('42 lines')
    expect(sum('bash', { text: 'a\nb\n[exit code: 1]', meta: { exitCode: 1 } })).toMatchObject({ summary: 'exit code 1', tail: ['a', 'b', '[exit code: 1]'] })
    expect(sum('bash', { meta: { exitCode: null, stopped: 'timeout' } }).summary).toBe('timed out')
    expect(sum('bash', { meta: { jobId: 'j3' } }).summary).toBe('started job j3')
    const edit = sum('edit', { text: 'Edited a.', meta: { path: '/a', replacements: 2, diff: '--- a\n+++ a\n@@ -1 +1 @@\n-x\n+y\n' } })
    expect(edit).toMatchObject({ summary: 'replaced 2 occurrences', tail: [] })
    expect(edit.diff).toContain('+y')
    expect(sum('write', { meta: { path: '/a', created: true } }).summary).toBe('created')
    expect(sum('glob', { meta: { matched: 1 } }).summary).toBe('1 file')
    expect(sum('ls', { meta: { entries: 3 } }).summary).toBe('3 entries')
    expect(sum('web_fetch', { meta: { status: 200, contentType: 'text/html' } }).summary).toBe('HTTP 200 text/html')
    expect(sum('read', { text: 'Error: a does not exist\nmore', isError: true })).toMatchObject({ summary: 'Error: a does not exist', error: 'Error: a does not exist' })
    expect(sum('mcp__s__t', { text: 'one\ntwo' }).summary).toBe('2 lines')
  })

  it('keeps control characters out of summaries, errors, tails and diffs', () => {
    const bad = sum('bash', { text: 'ok\x1b[2J\x1b]8;;http://x\x07link\n\x07bell', isError: true, meta: { exitCode: 0 } })
    for (const text of [bad.summary, bad.error ?? '', ...bad.tail]) expect(text).not.toMatch(CONTROL)
    const diff = sum('edit', { meta: { path: '/a', replacements: 1, diff: '@@ -1 +1 @@\n-\x1b[31mx\n+y\n' } }).diff ?? ''
    expect(diff).not.toMatch(CONTROL)
    expect(plainText('a\tb\r\nc')).toBe('a\tb\nc')
    expect(plainLine('a\tb')).toBe('a b')
  })
})

describe('a permission question', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rein-question-'))
  writeFileSync(join(dir, 'a.txt'), 'one\ntwo\nthree\n')
  const ask = (name: string, input: Record<string, unknown>, extra: Partial<PermissionRequest> = {}) =>
    permissionQuestion(
      { call: { turn: 1, step: 1, callId: 'c', name, arguments: JSON.stringify(input), input }, reason: `${name} is not allowed by a rule.`, ...extra },
      tools(name),
      dir,
    )

  it('shows the diff of an edit before it runs, computed from the file as it is now', async () => {
    const q = await ask('edit', { file_path: 'a.txt', old_string: 'two', new_string: 'TWO' }, { suggestedRule: 'Edit(a.txt)' })
    expect(q).toMatchObject({ title: 'Edit a.txt', rule: 'Edit(a.txt)', change: { path: join(dir, 'a.txt'), shown: 'a.txt', oldText: 'one\ntwo\nthree\n', newText: 'one\nTWO\nthree\n' } })
    expect(q.change?.diff).toContain('-two\n+TWO')
  })

  it('shows a new file written whole, and no diff for an edit that cannot apply', async () => {
    const created = await ask('write', { file_path: 'new.txt', content: 'hello\n' })
    expect(created.change).toMatchObject({ oldText: null, newText: 'hello\n' })
    expect(created.change?.diff).toContain('+hello')
    expect((await ask('edit', { file_path: 'a.txt', old_string: 'absent', new_string: 'x' })).change).toBeUndefined()
    expect((await ask('edit', { file_path: 'missing.txt', old_string: 'a', new_string: 'b' })).change).toBeUndefined()
    expect((await ask('edit', { file_path: 7 })).change).toBeUndefined()
  })

  it('carries the whole command, every line and character, never cut', async () => {
    const command = `echo start\n${'x'.repeat(5000)}\necho \x1b[31mend`
    const q = await ask('bash', { command }, { suggestedRule: 'Bash(echo:*)' })
    expect(q.command).toBe(`echo start\n${'x'.repeat(5000)}\necho end`)
    expect(q.rule).toBe('Bash(echo:*)')
    expect(q.reason).toBe('bash is not allowed by a rule.')
  })

  it('names the subagent that asks', async () => {
    const q = await ask('bash', { command: 'ls' }, { subagent: { agent: 'explore', description: 'look around', session: 's' } })
    expect(q.asker).toBe('Subagent explore (look around)')
  })
})
