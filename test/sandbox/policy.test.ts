import { describe, expect, it } from 'vitest'
import { namesExcludedCommand, resolveSandbox, SandboxSettingsError } from '../../src/sandbox/policy.js'

const user = {
  enabled: true,
  network: { allowedDomains: ['registry.npmjs.org', '*.github.com', 'Example.COM.'] },
  filesystem: { allowWrite: ['~/.npm'], denyRead: ['~/secrets'] },
  excludedCommands: ['docker'],
}

describe('the sandbox policy', () => {
  it('is off with nothing allowed when no layer says anything', () => {
    expect(resolveSandbox({}).policy).toEqual({
      enabled: false, allowedDomains: [], allowWrite: [], denyRead: [], excludedCommands: [], allowUnsandboxed: true,
    })
  })

  it('normalises domain rules to lower case without a trailing dot', () => {
    expect(resolveSandbox({ user }).policy.allowedDomains).toEqual(['registry.npmjs.org', '*.github.com', 'example.com'])
  })

  it('a project file cannot switch the sandbox off, and the notice says so', () => {
    const { policy, ignored } = resolveSandbox({ user, project: { enabled: false } })
    expect(policy.enabled).toBe(true)
    expect(ignored).toEqual(['sandbox.enabled: false (a project file may not turn the sandbox off)'])
  })

  it('a project file may switch the sandbox on', () => {
    expect(resolveSandbox({ project: { enabled: true } }).policy.enabled).toBe(true)
  })

  it('a project file may drop allowed domains but not add one', () => {
    const { policy, ignored } = resolveSandbox({ user, project: { network: { allowedDomains: ['registry.npmjs.org', 'evil.example'] } } })
    expect(policy.allowedDomains).toEqual(['registry.npmjs.org'])
    expect(ignored).toEqual(['sandbox.network.allowedDomains: evil.example (a project file may not add a domain)'])
  })

  it('a project file may add read denials but not writable paths or excluded commands', () => {
    const { policy, ignored } = resolveSandbox({
      user,
      project: { filesystem: { allowWrite: ['/etc'], denyRead: ['.env'] }, excludedCommands: ['docker', 'curl'] },
    })
    expect(policy.denyRead).toEqual(['~/secrets', '.env'])
    expect(policy.allowWrite).toEqual([])
    expect(policy.excludedCommands).toEqual(['docker'])
    expect(ignored).toEqual([
      'sandbox.filesystem.allowWrite: /etc (a project file may not add a writable path)',
      'sandbox.excludedCommands: curl (a project file may not exclude a command)',
    ])
  })

  it('a project file may forbid running outside the sandbox but not allow it', () => {
    expect(resolveSandbox({ user, project: { allowUnsandboxed: false } }).policy.allowUnsandboxed).toBe(false)
    const { policy, ignored } = resolveSandbox({ user: { allowUnsandboxed: false }, project: { allowUnsandboxed: true } })
    expect(policy.allowUnsandboxed).toBe(false)
    expect(ignored).toHaveLength(1)
  })

  it('the command-line flag decides over every file', () => {
    expect(resolveSandbox({ user, project: { enabled: true }, flag: false }).policy.enabled).toBe(false)
    expect(resolveSandbox({ flag: true }).policy.enabled).toBe(true)
  })

  it.each([
    ['10.0.0.1', /is an IP address/],
    ['*.com', /wildcard over a top-level domain/],
    ['user@example.com', /is not a host name/],
    ['example.com:443', /is not a host name/],
    ['*', /is not a host name/],
  ])('refuses the domain rule %s in one sentence', (rule, message) => {
    expect(() => resolveSandbox({ user: { network: { allowedDomains: [rule] } } })).toThrow(message)
  })

  it('refuses an unknown key with the key and the file named', () => {
    expect(() => resolveSandbox({ project: { enabeld: true } })).toThrow(SandboxSettingsError)
    expect(() => resolveSandbox({ project: { filesystem: { allowWrite: 'x' } } }, { user: 'u', project: 'Settings file /w/.rein/settings.json' })).toThrow(
      /^Settings file \/w\/\.rein\/settings\.json: sandbox.filesystem.allowWrite is invalid/,
    )
  })
})

describe('excluded commands', () => {
  it('match the first word of any part of a compound command, a path to it, or after variable assignments', () => {
    expect(namesExcludedCommand('docker ps', ['docker'])).toBe(true)
    expect(namesExcludedCommand('cd x && /usr/bin/docker build .', ['docker'])).toBe(true)
    expect(namesExcludedCommand('FOO=1 docker run', ['docker'])).toBe(true)
    expect(namesExcludedCommand('echo docker', ['docker'])).toBe(false)
    expect(namesExcludedCommand('dockerish', ['docker'])).toBe(false)
  })
})
