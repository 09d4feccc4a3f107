import { describe, expect, it } from 'vitest'
import { lastWordsOf } from '../../src/fleet/run-task.js'

describe("a task's rein process's last words", () => {
  it('are its last stderr line, without the rein: prefix', () => {
    expect(lastWordsOf('working\nrein: the model refused the key.\n')).toBe('the model refused the key.')
  })

  it("are a crash's own error line, not Node's version line that ends the report", () => {
    const crash = [
      'node:events:502',
      '      throw er; // Unhandled \'error\' event',
      '      ^',
      '',
      'error: terminating connection due to administrator command',
      '    at parseErrorMessage (file:///x/store.js:2449:101)',
      "Emitted 'error' event on Client instance at:",
      '    at Client._handleErrorEvent (file:///x/store.js:3264:9) {',
      "  code: '57P01',",
      '}',
      '',
      'Node.js v20.20.2',
    ].join('\n')
    expect(lastWordsOf(crash)).toBe('rein crashed: error: terminating connection due to administrator command')
    expect(lastWordsOf("TypeError [ERR_INVALID_ARG_TYPE]: The \"path\" argument must be of type string\n    at f (x.js:1:1)\n\nNode.js v22.1.0")).toBe(
      'rein crashed: TypeError [ERR_INVALID_ARG_TYPE]: The "path" argument must be of type string',
    )
  })

  it('stay the version line when a crash report holds no error line', () => {
    expect(lastWordsOf('something odd\n\nNode.js v24.0.0\n')).toBe('Node.js v24.0.0')
  })
})
