import { describe, expect, it } from 'vitest'
import { resultText, sandboxMark } from '../../src/sandbox/result-mark.js'

describe('the sandbox mark every surface reads from a tool result', () => {
  it('is absent when the result did not run sandboxed, whatever its text says', () => {
    expect(sandboxMark({ exitCode: 0 }, '[sandbox] The sandbox kept /x read-only.')).toBeUndefined()
    expect(sandboxMark(undefined, '')).toBeUndefined()
    expect(sandboxMark({ sandboxed: 'yes' }, '')).toBeUndefined()
  })

  it('marks a sandboxed result that the sandbox stopped nothing in, with no note', () => {
    expect(sandboxMark({ sandboxed: true, exitCode: 0 }, 'made\n[exit code: 0]')).toEqual({ refusedHosts: [] })
  })

  it('carries the note without its prefix, and the refused hosts', () => {
    const text = 'curl: (56) 403\n[sandbox] The sandbox refused a connection to evil.example (not in sandbox.network.allowedDomains).\n[exit code: 56]'
    expect(sandboxMark({ sandboxed: true, refusedHosts: ['evil.example'] }, text)).toEqual({
      note: 'The sandbox refused a connection to evil.example (not in sandbox.network.allowedDomains).',
      refusedHosts: ['evil.example'],
    })
  })

  it('takes the last [sandbox] line, since the command’s own output comes before the note', () => {
    expect(sandboxMark({ sandboxed: true }, '[sandbox] printed by the command\n[sandbox] The real note.\n[exit code: 1]')?.note).toBe('The real note.')
  })

  it('leaves out the sentence addressed to the model', () => {
    const text = '[sandbox] The sandbox kept /etc/x read-only. If it must run outside the sandbox, call it again unchanged: the user will be asked.\n[exit code: 1]'
    expect(sandboxMark({ sandboxed: true }, text)?.note).toBe('The sandbox kept /etc/x read-only.')
  })

  it('reads the text of content blocks, images contributing nothing', () => {
    expect(resultText([{ type: 'text', text: 'a' }, { type: 'image' }, { type: 'text', text: 'b' }])).toBe('ab')
  })
})
