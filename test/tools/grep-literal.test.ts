import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { requiredLiteral } from '../../src/tools/grep-literal.js'

describe('the literal the built-in grep looks for before it runs a pattern', () => {
  it('is the longest run of plain text a match must contain', () => {
    expect(requiredLiteral('needle', false)).toBe('needle')
    expect(requiredLiteral('const \\w+ = needle\\(', false)).toBe(' = needle(')
    expect(requiredLiteral('foo(?!bar)', false)).toBe('foo')
    expect(requiredLiteral('[ab]cde+f', false)).toBe('cde')
  })

  it('leaves out a character a quantifier may repeat zero times', () => {
    expect(requiredLiteral('colou?r', false)).toBe('colo')
    expect(requiredLiteral('abcx*', false)).toBe('abc')
    expect(requiredLiteral('ab{0,2}', false)).toBe('a')
  })

  it('gives none for an alternation, or for a pattern of classes, groups and escapes only', () => {
    expect(requiredLiteral('cat|dog', false)).toBeUndefined()
    expect(requiredLiteral('(needle)', false)).toBeUndefined()
    expect(requiredLiteral('\\d+\\s*\\w', false)).toBeUndefined()
  })

  it('keeps only ASCII characters that are not letters when case is ignored', () => {
    expect(requiredLiteral('Needle = 1', true)).toBe(' = 1')
    expect(requiredLiteral('needle', true)).toBeUndefined()
  })

  it('is in every string the pattern matches (property)', () => {
    const atom = fc.constantFrom('a', 'b', 'é', '.', '\\.', '\\d', '\\w', '[ab]', '[^a]', '(a)', '(?:ab)', '(?=a)', '(?<!b)', '^', '$', 'ab', ' ')
    const quantifier = fc.constantFrom('', '', '', '?', '*', '+', '{0,1}', '{2}', '+?')
    const pattern = fc.array(fc.tuple(atom, quantifier), { minLength: 1, maxLength: 6 }).map((parts) => parts.map(([a, q]) => a + q).join(''))
    const text = fc.array(fc.constantFrom('a', 'b', 'é', '.', '1', ' ', 'A', 'B'), { maxLength: 12 }).map((chars) => chars.join(''))
    fc.assert(
      fc.property(pattern, text, fc.boolean(), (source, haystack, ignoreCase) => {
        let regex: RegExp
        try {
          regex = new RegExp(source, ignoreCase ? 'i' : '')
        } catch {
          return // Not a pattern (`$?`): grep refuses it before any file is read.
        }
        const literal = requiredLiteral(source, ignoreCase)
        if (literal === undefined || !regex.test(haystack)) return
        expect(haystack).toContain(literal)
      }),
      { numRuns: 5000 },
    )
  })
})
