import { describe, expect, it } from 'vitest'
import { formatLogLine } from '../../src/fleet/log-line.js'

const at = new Date('2026-12-01T10:00:00.000Z')

describe("a worker's log line", () => {
  it('is the sentence alone in text, and one object with time, level and what it is about in json', () => {
    expect(formatLogLine('text', 'task b/t1: completed.', { batch: 'b', task: 't1' }, at)).toBe('task b/t1: completed.')
    expect(JSON.parse(formatLogLine('json', 'task b/t1: failed.', { level: 'error', worker: 'w1', batch: 'b', task: 't1' }, at))).toEqual({
      time: '2026-12-01T10:00:00.000Z',
      level: 'error',
      msg: 'task b/t1: failed.',
      worker: 'w1',
      batch: 'b',
      task: 't1',
    })
    expect(JSON.parse(formatLogLine('json', 'started', {}, at))).toEqual({ time: '2026-12-01T10:00:00.000Z', level: 'info', msg: 'started' })
  })

  it('stays one line whatever a task error holds (newlines, escape sequences)', () => {
    const hostile = 'boom\nfake line\r\u001b[2Jcleared'
    expect(formatLogLine('text', hostile)).toBe('boom fake line  [2Jcleared')
    const json = formatLogLine('json', hostile, {}, at)
    expect(json).not.toMatch(/[\n\r\u001b]/)
    expect(JSON.parse(json).msg).toBe(hostile)
  })
})
