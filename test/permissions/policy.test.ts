import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PermissionMode } from '../../src/agent/types.js'
import type { Settings } from '../../src/config/settings.js'
import { createPermissionPolicy, permissionNeededMessage, suggestedRule } from '../../src/permissions/policy.js'
import { bash, call } from './calls.js'

let root: string
let cwd: string
let outside: string
let home: string

beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'rein-perm-')))
  cwd = path.join(root, 'work')
  outside = path.join(root, 'outside')
  home = path.join(root, 'home')
  for (const d of [cwd, path.join(cwd, 'src'), outside, path.join(home, '.ssh')]) mkdirSync(d, { recursive: true })
  symlinkSync(outside, path.join(cwd, 'escape'))
  symlinkSync(path.join(home, '.ssh'), path.join(cwd, 'keys'))
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

type Extra = { extraAllow?: string[]; sessionAllow?: string[]; workspaceTrusted?: boolean }

function policy(mode: PermissionMode, permissions: Settings['permissions'] = {}, extra: Extra = {}) {
  return createPermissionPolicy({ cwd, settings: { permissions }, getMode: () => mode, home, reinHome: path.join(home, '.rein'), ...extra })
}
const action = (mode: PermissionMode, c: ReturnType<typeof call>, permissions?: Settings['permissions'], extra?: Extra) =>
  policy(mode, permissions, extra).decide(c).action
/** These tests are about rules, and use script runners (`npm test`, `make`) as examples: a trusted workspace. */
const trusted = { workspaceTrusted: true }

describe('the permission matrix: every mode × tool', () => {
  const calls = {
    read: call('read', { file_path: 'src/a.ts' }),
    grep: call('grep', { pattern: 'x' }),
    glob: call('glob', { pattern: '*' }),
    ls: call('ls', {}),
    job_output: call('job_output', { id: 'job1' }),
    todo_write: call('todo_write', { todos: [] }),
    write: call('write', { file_path: 'src/new.ts', content: '' }),
    edit: call('edit', { file_path: 'src/a.ts', old_string: 'a', new_string: 'b' }),
    bash: bash('npm test'),
    web_fetch: call('web_fetch', { url: 'https://example.com/' }),
    job_kill: call('job_kill', { id: 'job1' }),
    mcp: call('mcp__github__create_issue', { title: 't' }),
  }
  const expected: Record<PermissionMode, Record<keyof typeof calls, string>> = {
    default: { read: 'allow', grep: 'allow', glob: 'allow', ls: 'allow', job_output: 'allow', todo_write: 'allow', write: 'ask', edit: 'ask', bash: 'ask', web_fetch: 'ask', job_kill: 'allow', mcp: 'ask' },
    'accept-edits': { read: 'allow', grep: 'allow', glob: 'allow', ls: 'allow', job_output: 'allow', todo_write: 'allow', write: 'allow', edit: 'allow', bash: 'ask', web_fetch: 'ask', job_kill: 'allow', mcp: 'ask' },
    plan: { read: 'allow', grep: 'allow', glob: 'allow', ls: 'allow', job_output: 'allow', todo_write: 'allow', write: 'deny', edit: 'deny', bash: 'deny', web_fetch: 'ask', job_kill: 'allow', mcp: 'deny' },
    bypass: { read: 'allow', grep: 'allow', glob: 'allow', ls: 'allow', job_output: 'allow', todo_write: 'allow', write: 'allow', edit: 'allow', bash: 'allow', web_fetch: 'allow', job_kill: 'allow', mcp: 'allow' },
  }
  for (const mode of Object.keys(expected) as PermissionMode[]) {
    it(`decides every tool as documented in ${mode} mode`, () => {
      const got = Object.fromEntries(Object.entries(calls).map(([k, c]) => [k, action(mode, c)]))
      expect(got).toEqual(expected[mode])
    })
  }

  it('tells the model it is planning when plan mode denies a write', () => {
    const decision = policy('plan').decide(calls.write)
    expect(decision).toMatchObject({ action: 'deny' })
    expect((decision as { reason: string }).reason).toMatch(/plan mode, which is read-only. You are planning/)
  })
})

describe('rule precedence', () => {
  it('deny beats ask beats allow', () => {
    const c = bash('npm test')
    expect(action('default', c, { allow: ['Bash(npm test)'], ask: ['Bash(npm test)'], deny: ['Bash(npm test)'] })).toBe('deny')
    expect(action('default', c, { allow: ['Bash(npm test)'], ask: ['Bash(npm test)'] }, trusted)).toBe('ask')
    expect(action('default', c, { allow: ['Bash(npm test)'] }, trusted)).toBe('allow')
  })

  it('applies deny rules even in bypass mode', () => {
    expect(action('bypass', bash('ls && rm -rf build'), { deny: ['Bash(rm:*)'] })).toBe('deny')
  })

  it('lets an ask rule make a read ask', () => {
    expect(action('default', call('read', { file_path: '.env' }), { ask: ['Read(.env)'] })).toBe('ask')
  })

  it('lets an ask rule make an edit ask in accept-edits mode', () => {
    expect(action('accept-edits', call('edit', { file_path: 'src/a.ts', old_string: 'a', new_string: 'b' }), { ask: ['Edit(src/**)'] })).toBe('ask')
  })
})

describe('shell command rules', () => {
  const allow = { allow: ['Bash(git status:*)', 'Bash(npm test)'] }
  it('allows a prefix rule on the command and its arguments but not on a longer word', () => {
    expect(action('default', bash('git status'), allow)).toBe('allow')
    expect(action('default', bash('git status --short'), allow)).toBe('allow')
    expect(action('default', bash('git statusx'), allow)).toBe('ask')
  })

  it('allows an exact rule only on the exact command', () => {
    expect(action('default', bash('npm test'), allow, trusted)).toBe('allow')
    expect(action('default', bash("npm  'test'"), allow, trusted)).toBe('allow')
    expect(action('default', bash('npm test --watch'), allow, trusted)).toBe('ask')
  })

  it('does not allow `git status && rm -rf /` by Bash(git status:*), nor other smuggling', () => {
    for (const c of [
      'git status && rm -rf /',
      'git status; rm -rf /',
      'git status | sh',
      'git status || rm -rf /',
      'git status & rm -rf /',
      'git status $(rm -rf /)',
      'git status `rm -rf /`',
      'git status\nrm -rf /',
      'git status # ok\nrm -rf /',
      'git status > /etc/passwd',
      '(git status; rm -rf /)',
    ]) {
      expect(action('default', bash(c), allow), c).not.toBe('allow')
    }
  })

  it('allows a compound command when every part is allowed', () => {
    expect(action('default', bash('git status && npm test 2>&1 | git status --short'), allow, trusted)).toBe('allow')
  })

  it('allows commands covered by rules in plan mode, since the user vouched for them', () => {
    expect(action('plan', bash('git status'), allow)).toBe('allow')
    expect(action('plan', bash('git status && touch x'), allow)).toBe('deny')
  })

  it('supports * wildcards inside a pattern', () => {
    expect(action('default', bash('npm run build'), { allow: ['Bash(npm run *)'] }, trusted)).toBe('allow')
  })
})

describe('path rules and the workspace boundary', () => {
  const write = (file_path: string) => call('write', { file_path, content: 'x' })
  const edit = (file_path: string) => call('edit', { file_path, old_string: 'a', new_string: 'b' })

  it('allows edits matching an Edit rule in default mode and asks for others', () => {
    const rules = { allow: ['Edit(src/**)'] }
    expect(action('default', edit('src/deep/a.ts'), rules)).toBe('allow')
    expect(action('default', write(path.join(cwd, 'src/b.ts')), rules)).toBe('allow')
    expect(action('default', edit('lib/a.ts'), rules)).toBe('ask')
  })

  it('denies reads under ~/.ssh by a Read rule, for read, grep, ls and through a symlink', () => {
    const rules = { deny: ['Read(~/.ssh/**)'] }
    expect(action('bypass', call('read', { file_path: path.join(home, '.ssh/id_rsa') }), rules)).toBe('deny')
    expect(action('default', call('read', { file_path: '~/.ssh/id_rsa' }), rules)).toBe('deny')
    expect(action('default', call('grep', { pattern: 'x', path: path.join(home, '.ssh') }), rules)).toBe('deny')
    expect(action('default', call('ls', { path: '~/.ssh' }), rules)).toBe('deny')
    expect(action('default', call('read', { file_path: 'keys/id_rsa' }), rules)).toBe('deny')
    expect(action('default', call('read', { file_path: 'src/a.ts' }), rules)).toBe('allow')
  })

  it('denies a shell command that names a path a Read or Edit deny rule protects, even when a Bash rule allows it', () => {
    const rules = { deny: ['Read(~/.ssh/**)', 'Edit(.env)'], allow: ['Bash(cat:*)', 'Bash(cp:*)', 'Bash(grep:*)'] }
    expect(action('default', bash('cat ~/.ssh/id_rsa'), rules)).toBe('deny')
    expect(action('bypass', bash(`cat ${path.join(home, '.ssh/id_rsa')}`), rules)).toBe('deny')
    expect(action('default', bash('cat keys/id_rsa'), rules)).toBe('deny')
    expect(action('default', bash('grep --file=keys/config x src'), rules)).toBe('deny')
    expect(action('default', bash('cp template .env'), rules)).toBe('deny')
    expect(policy('default', rules).decide(bash('cat ~/.ssh/id_rsa'))).toMatchObject({
      reason: expect.stringMatching(/Read\(~\/\.ssh\/\*\*\) \(the command names ~\/\.ssh\/id_rsa\)/),
    })
    expect(action('default', bash('cat src/a.ts'), rules)).toBe('allow')
    expect(action('default', bash('grep -rn env src'), rules)).toBe('allow')
  })

  it('asks for writes outside the workspace in accept-edits mode: ../ paths, absolute paths and symlink escapes', () => {
    for (const p of ['../../etc/passwd', '../outside/x.txt', '/etc/hosts', path.join(outside, 'x.txt'), 'escape/x.txt', 'src/../../outside/y']) {
      expect(action('accept-edits', write(p)), p).toBe('ask')
      expect(action('accept-edits', edit(p)), p).toBe('ask')
      expect(action('plan', write(p)), p).toBe('deny')
      expect(action('bypass', write(p)), p).toBe('allow')
    }
  })

  it('allows a write outside the workspace only by a rule naming its real path', () => {
    expect(action('default', write(path.join(outside, 'x.txt')), { allow: [`Edit(${outside}/**)`] })).toBe('allow')
    expect(action('default', write('escape/x.txt'), { allow: [`Edit(${outside}/**)`] })).toBe('allow')
    expect(action('default', write('escape/x.txt'), { allow: ['Edit(escape/**)'] })).toBe('ask')
  })

  it('counts additional directories as workspace', () => {
    expect(action('accept-edits', write(path.join(outside, 'x.txt')), { additionalDirectories: [outside] })).toBe('allow')
  })
})

describe('other rules', () => {
  it('allows WebFetch by domain and MCP tools by server wildcard', () => {
    expect(action('default', call('web_fetch', { url: 'https://docs.example.com/a' }), { allow: ['WebFetch(domain:*.example.com)'] })).toBe('allow')
    expect(action('default', call('web_fetch', { url: 'https://evil.com/a' }), { allow: ['WebFetch(domain:example.com)'] })).toBe('ask')
    expect(action('default', call('mcp__github__list', {}), { allow: ['mcp__github__*'] })).toBe('allow')
    expect(action('default', call('mcp__gitlab__list', {}), { allow: ['mcp__github__*'] })).toBe('ask')
  })

  it('takes --allow rules and rules granted during the session, at once', () => {
    const sessionAllow: string[] = []
    const p = policy('default', {}, { extraAllow: ['Bash(make)'], sessionAllow, workspaceTrusted: true })
    expect(p.decide(bash('make')).action).toBe('allow')
    expect(p.decide(bash('npm test')).action).toBe('ask')
    p.allowForSession('Bash(npm test)')
    expect(p.decide(bash('npm test')).action).toBe('allow')
    expect(sessionAllow).toEqual(['Bash(npm test)'])
  })

  it('refuses a malformed --allow rule with a sentence saying what is expected', () => {
    expect(() => policy('default', {}, { extraAllow: ['Bash(npm test'] })).toThrow(/write Tool or Tool\(pattern\)/)
  })
})

describe('what the user and the model are told', () => {
  it('suggests narrow rules for "allow always"', () => {
    expect(suggestedRule(bash('npm test'), cwd)).toBe('Bash(npm test)')
    expect(suggestedRule(bash('npm test && rm -rf /'), cwd)).toBeUndefined()
    expect(suggestedRule(call('edit', { file_path: path.join(cwd, 'src/a.ts') }), cwd)).toBe('Edit(src/a.ts)')
    expect(suggestedRule(call('web_fetch', { url: 'https://example.com/x' }), cwd)).toBe('WebFetch(domain:example.com)')
    expect(suggestedRule(call('mcp__s__t', {}), cwd)).toBe('mcp__s__t')
  })

  it('tells the model how the user can grant a permission when no one can be asked', () => {
    const text = permissionNeededMessage(bash('npm test'))
    expect(text).toMatch(/Permission needed: running `npm test` requires the user's approval/)
    expect(text).toContain("--allow 'Bash(npm test)'")
    expect(text).toContain('--permission-mode bypass')
    expect(permissionNeededMessage(call('write', { file_path: 'a.ts', content: '' }))).toContain('--permission-mode accept-edits')
  })

  it('asks with a short description of the action', () => {
    const decision = policy('default').decide(call('write', { file_path: '../outside/x', content: '' }))
    expect(decision).toEqual({ action: 'ask', reason: `Write ${path.join(outside, 'x')} (outside the workspace)` })
  })
})
