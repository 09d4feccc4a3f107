import { linkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { permissionNeededMessage } from '../../src/permissions/policy.js'
import { bash, call } from './calls.js'
import { policyFixture, type PolicyFixture } from './policy-setup.js'

let f: PolicyFixture
beforeAll(() => {
  f = policyFixture()
})
afterAll(() => f.dispose())

const write = (file_path: string) => call('write', { file_path, content: 'x' })
const edit = (file_path: string) => call('edit', { file_path, old_string: 'a', new_string: 'b' })

describe('protected paths', () => {
  const protectedPaths = ['.git/config', '.git/hooks/pre-commit', '.rein/settings.local.json', '.claude/settings.json', '.codex/config.toml', '.mcp.json', '.vscode/tasks.json', '.idea/workspace.xml', 'vendor/lib/.git/config']

  it('asks for writes to protected paths in accept-edits mode, and says why', () => {
    for (const p of protectedPaths) {
      const decision = f.decide('accept-edits', write(p))
      expect(decision.action, p).toBe('ask')
      expect(decision.reason, p).toMatch(/is a protected path.*always asks, except in bypass mode/)
      expect(f.decide('accept-edits', edit(p)).action, p).toBe('ask')
    }
  })

  it('asks for protected paths even when an allow rule covers them, and allows them in bypass mode', () => {
    expect(f.decide('default', write('.git/config'), { allow: ['Edit(**)', 'Edit(.git/**)'] }).action).toBe('ask')
    expect(f.decide('bypass', write('.git/hooks/pre-commit')).action).toBe('allow')
  })

  it('asks for writes to the user settings and credentials in Rein home even with an allow rule for home', () => {
    const decision = f.decide('accept-edits', write(path.join(f.reinHome, 'settings.json')), { allow: ['Edit(~/**)'] })
    expect(decision).toMatchObject({ action: 'ask', reason: expect.stringMatching(/Rein's own home/) })
  })

  it('still allows ordinary writes inside the workspace in accept-edits mode', () => {
    expect(f.decide('accept-edits', write('src/gitconfig.ts')).action).toBe('allow')
    expect(f.decide('accept-edits', write('docs/.github/x.md')).action).toBe('allow')
  })

  it('asks for a shell command that names a protected path even when a rule allows the command', () => {
    const rules = { allow: ['Bash(cp:*)', 'Bash(echo:*)', 'Bash(tee:*)'] }
    for (const c of ['cp f .rein/settings.local.json', 'echo x > .git/hooks/pre-commit', 'tee .git/config', 'cp --target-directory=.git/hooks f']) {
      expect(f.decide('default', bash(c), rules).action, c).toBe('ask')
    }
    expect(f.decide('default', bash('cp f .rein/settings.local.json'), rules).reason).toMatch(/names \.rein\/settings\.local\.json.*protected path/)
    expect(f.decide('default', bash('cp a.txt b.txt'), rules).action).toBe('allow')
  })

  it('offers no allow-always rule for a question no rule can answer', () => {
    expect(f.policy('accept-edits').suggestedRule(write('.git/config'))).toBeUndefined()
  })
})

describe('read rules and the workspace boundary for reading tools', () => {
  const deny = { deny: ['Read(~/.ssh/**)'] }

  it('asks for reads outside the workspace in default mode, like writes', () => {
    for (const c of [
      call('read', { file_path: '/etc/hostname' }),
      call('grep', { pattern: 'x', path: '/etc' }),
      call('glob', { pattern: '*', path: '/etc' }),
      call('ls', { path: '/' }),
    ]) {
      expect(f.decide('default', c), c.name).toMatchObject({ action: 'ask', reason: expect.stringMatching(/outside the workspace/) })
    }
    expect(f.decide('default', call('read', { file_path: 'src/a.ts' })).action).toBe('allow')
    expect(f.decide('bypass', call('read', { file_path: '/etc/hostname' })).action).toBe('allow')
  })

  it('allows a read outside the workspace by a Read rule or an additional directory', () => {
    expect(f.decide('default', call('read', { file_path: '/etc/hostname' }), { allow: ['Read(/etc/**)'] }).action).toBe('allow')
    expect(f.decide('default', call('ls', { path: '/etc' }), { additionalDirectories: ['/etc'] }).action).toBe('allow')
  })

  it('denies every tool Rein home, sessions and credentials included, even in bypass mode', () => {
    for (const c of [
      call('read', { file_path: path.join(f.reinHome, 'credentials') }),
      call('read', { file_path: '~/.rein/credentials' }),
      call('grep', { pattern: 'x', path: path.join(f.reinHome, 'sessions') }),
      call('ls', { path: f.reinHome }),
    ]) {
      const decision = f.decide('bypass', c)
      expect(decision.action, c.name).toBe('deny')
      expect(decision.reason).toMatch(/Rein's own home .* holds sessions and credentials/)
    }
    expect(f.decide('bypass', bash(`cat ${path.join(f.reinHome, 'credentials')}`)).action).toBe('deny')
  })

  it('opens Rein home only to an allow rule that names it', () => {
    const file = call('read', { file_path: path.join(f.reinHome, 'credentials') })
    expect(f.decide('bypass', file, { allow: ['Read(~/**)'] }).action).toBe('deny')
    expect(f.decide('bypass', file, { allow: ['Read(~/.rein/**)'] }).action).toBe('allow')
  })

  it('denies a hard link inside the workspace to a file a Read deny rule covers', () => {
    const link = path.join(f.cwd, 'innocent.txt')
    linkSync(path.join(f.home, '.ssh/id_rsa'), link)
    const decision = f.decide('bypass', call('read', { file_path: 'innocent.txt' }), deny)
    expect(decision).toMatchObject({ action: 'deny', reason: expect.stringMatching(/hard link to a file the permission rule Read\(~\/\.ssh\/\*\*\) covers/) })
    expect(f.decide('default', bash('cat innocent.txt'), { ...deny, allow: ['Bash(cat:*)'] }).action).toBe('deny')
    writeFileSync(path.join(f.cwd, 'plain.txt'), 'x')
    expect(f.decide('default', call('read', { file_path: 'plain.txt' }), deny).action).toBe('allow')
  })

  it('denies every reading tool a process environment or memory, even in bypass mode, unless a rule names it', () => {
    for (const file of ['/proc/self/environ', `/proc/${process.pid}/environ`, '/proc/1/mem', '/proc/self/task/1/environ']) {
      const decision = f.decide('bypass', call('read', { file_path: file }))
      expect(decision.action, file).toBe('deny')
      expect(decision.reason).toMatch(/a process's environment or memory, where keys live/)
    }
    expect(f.decide('bypass', call('read', { file_path: '/proc/self/environ' }), { allow: ['Read(/proc/**)'] }).action).toBe('allow')
    expect(f.decide('bypass', call('read', { file_path: '/proc/self/status' })).action).toBe('allow')
  })

  it('denies a hard link to Rein credentials', () => {
    linkSync(path.join(f.reinHome, 'credentials'), path.join(f.cwd, 'creds.txt'))
    expect(f.decide('bypass', call('read', { file_path: 'creds.txt' }))).toMatchObject({
      action: 'deny',
      reason: expect.stringMatching(/hard link to a file Rein's own home .* covers/),
    })
  })

  it('tells the model why in -p when a read outside the workspace needs approval', () => {
    const c = call('read', { file_path: '/etc/hostname' })
    const decision = f.decide('default', c)
    expect(permissionNeededMessage(c, decision.reason)).toMatch(/read of \/etc\/hostname requires the user's approval \(outside the workspace\).*--allow 'Read\(\/etc\/hostname\)'/s)
  })
})
