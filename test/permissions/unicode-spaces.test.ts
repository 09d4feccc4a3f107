import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { splitCommand } from '../../src/permissions/shell-split.js'
import { call } from './calls.js'
import { policyFixture, type PolicyFixture } from './policy-setup.js'

/**
 * Unicode space characters in a command (issue 29): the parser splits words at them, bash does not, so a rule must
 * not match what the parser saw. The command becomes one that cannot be judged from its text: it asks.
 */

const SPACES: [string, string][] = [
  ['U+00A0', '\u00a0'],
  ['U+1680', '\u1680'],
  ...Array.from({ length: 11 }, (_, i): [string, string] => [`U+${(0x2000 + i).toString(16).toUpperCase()}`, String.fromCodePoint(0x2000 + i)]),
  ['U+2028', '\u2028'],
  ['U+2029', '\u2029'],
  ['U+202F', '\u202f'],
  ['U+205F', '\u205f'],
  ['U+3000', '\u3000'],
  ['U+FEFF', '\ufeff'],
]

let fx: PolicyFixture
beforeEach(() => (fx = policyFixture()))
afterEach(() => fx.dispose())

describe('a Unicode space in a command', () => {
  for (const [code, space] of SPACES) {
    it(`${code}: Bash(echo:*) does not allow echo${code}hi, which asks and names the character`, () => {
      const decision = fx.decide('default', call('bash', { command: `echo${space}hi` }), { allow: ['Bash(echo:*)'] })
      expect(decision.action).toBe('ask')
      expect(decision.reason).toContain(`the Unicode space ${code}`)
      expect(splitCommand(`echo${space}hi`).opaque).toBe(true)
    })
  }

  it('inside an otherwise allowed command (echo a && echo<U+3000>b) it still asks', () => {
    expect(fx.decide('default', call('bash', { command: 'echo a && echo\u3000b' }), { allow: ['Bash(echo:*)'] }).action).toBe('ask')
  })

  it('an ASCII space, a tab and a newline still split words as bash does', () => {
    expect(fx.decide('default', call('bash', { command: 'echo hi' }), { allow: ['Bash(echo:*)'] }).action).toBe('allow')
    expect(fx.decide('default', call('bash', { command: 'echo\thi' }), { allow: ['Bash(echo:*)'] }).action).toBe('allow')
    expect(splitCommand('echo a\necho b').opaque).toBe(false)
  })

  it('a deny rule still refuses the parts it sees', () => {
    expect(fx.decide('bypass', call('bash', { command: 'rm -rf x && echo\u00a0hi' }), { deny: ['Bash(rm:*)'] }).action).toBe('deny')
  })
})
