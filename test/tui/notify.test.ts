import { describe, expect, it } from 'vitest'
import { AttentionNotifier, NOTIFY_AFTER_MS, notificationBytes, resolveChannel } from '../../src/cli/tui/notify.js'
import type { SessionEvent } from '../../src/session/events.js'

const start = { seq: 0, time: 0, type: 'turn/start', data: { turn: 1 } } as unknown as SessionEvent
const end = (reason: string) => ({ seq: 1, time: 0, type: 'turn/end', data: { turn: 1, reason } }) as unknown as SessionEvent

function harness(channel: 'bell' | 'osc9' | 'osc777' | 'off', focused?: boolean) {
  let now = 1_000
  const written: string[] = []
  const notifier = new AttentionNotifier({ channel, write: (b) => void written.push(b), focused: () => focused, now: () => now })
  return { notifier, written, advance: (ms: number) => (now += ms) }
}

describe('notifications', () => {
  it('writes BEL, OSC 9 and OSC 777 with the title and body, with nothing in them that could end the sequence early', () => {
    expect(notificationBytes('bell', 'Rein', 'x')).toBe('\x07')
    expect(notificationBytes('osc9', 'Rein', 'The turn finished.')).toBe('\x1b]9;Rein: The turn finished.\x07')
    expect(notificationBytes('osc777', 'Rein', 'The turn finished.')).toBe('\x1b]777;notify;Rein;The turn finished.\x07')
    expect(notificationBytes('osc777', 'a;b', 'evil\x07\x1b]0;owned\x07')).toBe('\x1b]777;notify;a,b;evil  ]0;owned \x07')
    expect(notificationBytes('off', 'Rein', 'x')).toBe('')
  })

  it('rings when a turn that ran longer than a few seconds ends, and stays quiet for a short or cancelled one', () => {
    const { notifier, written, advance } = harness('bell')
    notifier.event(start)
    advance(1_000)
    notifier.event(end('completed'))
    expect(written).toEqual([])
    notifier.event(start)
    advance(NOTIFY_AFTER_MS)
    notifier.event(end('aborted'))
    expect(written).toEqual([])
    notifier.event(start)
    advance(NOTIFY_AFTER_MS)
    notifier.event(end('completed'))
    expect(written).toEqual(['\x07'])
  })

  it('notifies of a question waiting in a long turn, but not while the terminal says it is focused', () => {
    const away = harness('osc9', false)
    away.notifier.event(start)
    away.advance(NOTIFY_AFTER_MS + 1)
    away.notifier.asked('Permission needed: bash.')
    expect(away.written).toEqual(['\x1b]9;Rein: Permission needed: bash.\x07'])
    const watching = harness('osc9', true)
    watching.notifier.event(start)
    watching.advance(NOTIFY_AFTER_MS + 1)
    watching.notifier.asked('Permission needed: bash.')
    watching.notifier.event(end('completed'))
    expect(watching.written).toEqual([])
  })

  it('picks the bell inside tmux and where the terminal is unknown, OSC 9 or 777 where the terminal shows them', () => {
    expect(resolveChannel('auto', { TMUX: '/tmp/tmux', TERM_PROGRAM: 'iTerm.app' })).toBe('bell')
    expect(resolveChannel('auto', { TERM_PROGRAM: 'WezTerm' })).toBe('osc9')
    expect(resolveChannel('auto', { VTE_VERSION: '7600' })).toBe('osc777')
    expect(resolveChannel('auto', {})).toBe('bell')
    expect(resolveChannel('off', { TERM_PROGRAM: 'WezTerm' })).toBe('off')
  })
})
