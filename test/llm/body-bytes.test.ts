import { createHash } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ElementBytes, GrowingBytes, wholeBytes } from '../../src/llm/body-bytes.js'

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex')
const text = fc.string({ unit: 'grapheme', maxLength: 40 })

describe('body bytes kept between requests', () => {
  it('a growing buffer with a tail is the bytes of its text so far plus the tail, and earlier bodies never change', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ append: fc.array(text, { maxLength: 3 }), tail: text })), (steps) => {
        const growing = new GrowingBytes()
        let sofar = ''
        const handed: { chunks: readonly Uint8Array[]; expected: string }[] = []
        for (const { append, tail } of steps) {
          for (const piece of append) {
            growing.append(piece)
            sofar += piece
          }
          const body = growing.withTail(tail)
          const whole = Buffer.from(sofar + tail, 'utf8')
          expect(body.bytes).toBe(whole.length)
          expect(body.sha256).toBe(sha256(whole))
          handed.push({ chunks: body.chunks, expected: sofar + tail })
        }
        for (const { chunks, expected } of handed) expect(Buffer.concat(chunks).toString('utf8')).toBe(expected)
      }),
    )
  })

  it('array elements kept as bytes equal the body written out whole, across pushes, new prefixes and restarts', () => {
    // Each step either pushes elements (the fold extends), encodes with some prefix, or restarts (a new fold: a
    // compaction or a list that is not an extension), as a wire encoder does.
    const step = fc.oneof(
      fc.record({ push: fc.array(text.map((t) => JSON.stringify(t)), { minLength: 1, maxLength: 3 }) }),
      fc.record({ prefix: fc.constantFrom('{"messages":[', '{"m":1,"messages":[', '{"messages":[{"role":"system"}'), tail: text }),
      fc.constant({ restart: true as const }),
    )
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
        let kept = new ElementBytes()
        let elements: string[] = []
        const handed: { chunks: readonly Uint8Array[]; expected: string }[] = []
        for (const s of steps) {
          if ('restart' in s) {
            kept = new ElementBytes()
            elements = []
          } else if ('push' in s) {
            for (const json of s.push) kept.push(json)
            elements.push(...s.push)
          } else {
            const open = s.prefix.endsWith('[')
            const joined = elements.join(',')
            const expected = `${s.prefix}${!open && joined ? ',' : ''}${joined}${s.tail}`
            const body = kept.encode(s.prefix, joined, s.tail)
            const whole = Buffer.from(expected, 'utf8')
            expect(Buffer.concat(body.chunks).equals(whole)).toBe(true)
            expect(body.bytes).toBe(whole.length)
            expect(body.sha256).toBe(sha256(whole))
            handed.push({ chunks: body.chunks, expected })
          }
        }
        for (const { chunks, expected } of handed) expect(Buffer.concat(chunks).toString('utf8')).toBe(expected)
      }),
      { numRuns: 300 },
    )
  })

  it('a body encoded whole is one chunk with its digest', () => {
    const body = wholeBytes('{"é":1}')
    expect(Buffer.concat(body.chunks).toString('utf8')).toBe('{"é":1}')
    expect(body.bytes).toBe(8)
    expect(body.sha256).toBe(sha256(Buffer.from('{"é":1}', 'utf8')))
  })
})
