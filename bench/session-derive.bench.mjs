// Derive cost per step: a synthetic 10,000-step session; the time of `messages()` after each step's appends, at
// step 10,000 against step 100 (medians over 100 steps around each). Target: ratio at most 1.5.
import { Session } from '../dist/session/session.js'
import { MemoryStore } from '../dist/store/memory-store.js'

const session = await Session.create(new MemoryStore(), { cwd: '/bench' })
const text = (t) => [{ type: 'text', text: t }]
const STEPS = 10_050
const derive = new Float64Array(STEPS + 1)
const whole = new Float64Array(STEPS + 1)
session.append('turn/start', { turn: 1 })
session.append('user/message', { id: 'u', content: text('start'), source: { kind: 'user' } })
for (let step = 1; step <= STEPS; step++) {
  const t0 = performance.now()
  session.append('step/start', { turn: 1, step })
  const call = { type: 'tool-call', id: `c${step}`, name: 'read', arguments: `{"path":"f${step}"}` }
  session.append('assistant/message', { turn: 1, step, message: { role: 'assistant', content: [{ type: 'text', text: `step ${step}` }, call] } })
  session.append('tool/call', { turn: 1, step, callId: call.id, name: 'read', arguments: call.arguments })
  session.append('tool/result', { turn: 1, step, callId: call.id, content: text(`content of f${step}`), isError: false })
  session.append('step/end', { turn: 1, step })
  const t1 = performance.now()
  const messages = session.messages()
  const t2 = performance.now()
  if (messages.length !== 1 + 2 * step) throw new Error('derive returned the wrong number of messages')
  derive[step] = t2 - t1
  whole[step] = t2 - t0
}

function medianAround(series, at) {
  const window = Array.from(series.subarray(at - 50, at + 50)).sort((a, b) => a - b)
  return window[50]
}
const us = (ms) => `${(ms * 1000).toFixed(2)} µs`
const d100 = medianAround(derive, 100)
const d10k = medianAround(derive, 10_000)
const w100 = medianAround(whole, 100)
const w10k = medianAround(whole, 10_000)
console.log(`derive (messages()) at step 100:    ${us(d100)}`)
console.log(`derive (messages()) at step 10,000: ${us(d10k)}  (ratio ${(d10k / d100).toFixed(2)}, target ≤ 1.5)`)
console.log(`step (5 appends + derive) at 100:   ${us(w100)}`)
console.log(`step (5 appends + derive) at 10,000:${us(w10k)}  (ratio ${(w10k / w100).toFixed(2)}, target ≤ 1.5)`)
