import { describe, expect, it } from 'vitest'
import { compileMatcher } from '../../src/hooks/matcher.js'

function matches(raw: string, dialect: 'claude' | 'codex', target: string): boolean {
  const compiled = compileMatcher(raw, dialect)
  if ('error' in compiled) throw new Error(compiled.error)
  return compiled.test(target)
}

describe('hook matchers', () => {
  it('an empty matcher and "*" match every tool in both dialects', () => {
    for (const dialect of ['claude', 'codex'] as const) {
      expect(matches('', dialect, 'Bash')).toBe(true)
      expect(matches('*', dialect, 'mcp__github__create_issue')).toBe(true)
    }
  })

  it('a plain Claude Code name matches only that exact name', () => {
    expect(matches('Edit', 'claude', 'Edit')).toBe(true)
    expect(matches('Edit', 'claude', 'MultiEdit')).toBe(false)
    expect(matches('Edit', 'claude', 'edit')).toBe(false)
  })

  it('a Claude Code |-list matches each listed name exactly', () => {
    expect(matches('Edit|Write', 'claude', 'Write')).toBe(true)
    expect(matches('Edit|Write', 'claude', 'Edit')).toBe(true)
    expect(matches('Edit|Write', 'claude', 'WriteFile')).toBe(false)
  })

  it('a Claude Code matcher with other characters is an unanchored regular expression', () => {
    expect(matches('mcp__github__.*', 'claude', 'mcp__github__create_issue')).toBe(true)
    expect(matches('mcp__github__.*', 'claude', 'mcp__gitlab__x')).toBe(false)
    expect(matches('^(Read|Grep)$', 'claude', 'Grep')).toBe(true)
  })

  it('a Codex matcher is always a regular expression, so a plain name also matches longer names', () => {
    expect(matches('Edit', 'codex', 'MultiEdit')).toBe(true)
    expect(matches('^Bash$', 'codex', 'Bash')).toBe(true)
  })

  it('an invalid regular expression is reported, not thrown', () => {
    const compiled = compileMatcher('Bash(', 'claude')
    expect('error' in compiled && compiled.error).toMatch(/Bash\(.*not a valid regular expression/)
  })

  it('an event without a target (Stop, UserPromptSubmit) runs whatever its matcher says', () => {
    const compiled = compileMatcher('Bash', 'claude')
    expect('error' in compiled ? false : compiled.test(undefined)).toBe(true)
  })
})
