import { describe, expect, it } from 'vitest'
import { TITLE_MAX_CHARS, titleFromAnswer } from '../../src/titles/sanitize.js'

describe('the title a model answer gives', () => {
  it('is the answer trimmed, on one line', () => {
    expect(titleFromAnswer('  Fix flaky login test  \n')).toBe('Fix flaky login test')
  })

  it('is the first line that says something, whatever line breaks the model used', () => {
    expect(titleFromAnswer('\n\r\n  \u2028Rename the config loader\r\nBecause the user asked')).toBe('Rename the config loader')
  })

  it('drops a label, markdown heading marks, wrapping quotes and a final period', () => {
    expect(titleFromAnswer('Title: "Add retry to uploads."')).toBe('Add retry to uploads')
    expect(titleFromAnswer('## **Port the parser to Rust**')).toBe('Port the parser to Rust')
    expect(titleFromAnswer('“Speed up CI”')).toBe('Speed up CI')
  })

  it('holds no control, bidi or zero-width character', () => {
    const title = titleFromAnswer('Fix\u0007 the \u202eevil\u202c \u2066name\u2069\u200b\ttest\u0000\u009b')
    expect(title).toBe('Fix the evil name test')
    expect(title).not.toMatch(/[\p{Cc}\p{Cf}]/u)
  })

  it('collapses runs of spaces', () => {
    expect(titleFromAnswer('Clean    up   \u00a0 imports')).toBe('Clean up imports')
  })

  it(`cuts a long answer at a word to at most ${TITLE_MAX_CHARS} characters, with an ellipsis`, () => {
    const title = titleFromAnswer('Refactor the session store so that listings read summaries from an index instead of every log file')!
    expect([...title].length).toBeLessThanOrEqual(TITLE_MAX_CHARS)
    expect(title).toMatch(/^Refactor the session store .*[a-z]…$/)
    expect(title).not.toMatch(/ …$/)
  })

  it('cuts a long word without breaking a surrogate pair', () => {
    const title = titleFromAnswer('x😀'.repeat(50))!
    expect([...title].length).toBe(TITLE_MAX_CHARS)
    expect(title).toBe(`${[...'x😀'.repeat(50)].slice(0, TITLE_MAX_CHARS - 1).join('')}…`)
    expect(title).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/)
  })

  it('keeps titles in any script', () => {
    expect(titleFromAnswer('修复登录测试')).toBe('修复登录测试')
  })

  it('gives none for an empty answer or one with no letter or digit', () => {
    expect(titleFromAnswer('')).toBeUndefined()
    expect(titleFromAnswer('   \n\n ')).toBeUndefined()
    expect(titleFromAnswer('"…" ***\n---\n\u202e\u200b')).toBeUndefined()
    expect(titleFromAnswer('😀🎉')).toBeUndefined()
  })
})
