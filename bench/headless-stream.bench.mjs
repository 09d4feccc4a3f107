// stream-json against events: the cost of printing one step (assistant message with a tool call, its result) of a
// synthetic 10,000-step session as Claude Code's lines (ClaudeStream: projection + JSON) against Rein's own event
// lines (JSON of each event), and the cost of the closing result at 10,000 steps. Medians over all steps.
import { Session } from '../dist/session/session.js'
import { MemoryStore } from '../dist/store/memory-store.js'
import { modelInfo } from '../dist/llm/catalog.js'
import { ClaudeStream } from '../dist/cli/print/claude/stream.js'

const STEPS = 10_000
const session = await Session.create(new MemoryStore(), { cwd: '/bench' })
const text = (t) => [{ type: 'text', text: t }]
const usage = { inputUncached: 120, inputCacheRead: 4000, output: 60, reasoning: 20 }
let bytes = { claude: 0, events: 0 }
const stream = new ClaudeStream({
  sessionId: session.id,
  model: modelInfo('deepseek-flash'),
  modelId: 'deepseek-flash',
  events: () => session.events,
  fromSeq: 0,
  denials: [],
  partial: false,
  write: (line) => (bytes.claude += JSON.stringify(line).length + 1),
  started: performance.now(),
})

function append(type, data) {
  return session.append(type, data)
}

const claude = new Float64Array(STEPS)
const events = new Float64Array(STEPS)
append('turn/start', { turn: 1 })
append('user/message', { id: 'u', content: text('start'), source: { kind: 'user' } })
for (let step = 1; step <= STEPS; step++) {
  const call = { type: 'tool-call', id: `c${step}`, name: 'read', arguments: `{"file_path":"src/f${step}.ts"}` }
  const appended = [
    append('step/start', { turn: 1, step }),
    append('assistant/message', { turn: 1, step, message: { role: 'assistant', content: [{ type: 'reasoning', text: `look at f${step}` }, call] }, usage }),
    append('tool/call', { turn: 1, step, callId: call.id, name: 'read', arguments: call.arguments }),
    append('tool/result', { turn: 1, step, callId: call.id, content: text(`content of f${step}\n`.repeat(20)), isError: false }),
    append('step/end', { turn: 1, step }),
  ]
  const t0 = performance.now()
  for (const event of appended) stream.live({ type: 'event', event })
  const t1 = performance.now()
  for (const event of appended) bytes.events += JSON.stringify({ type: 'event', event }).length + 1
  const t2 = performance.now()
  claude[step - 1] = t1 - t0
  events[step - 1] = t2 - t1
}
const t0 = performance.now()
stream.live({ type: 'event', event: append('turn/end', { turn: 1, reason: 'completed' }) })
const resultMs = performance.now() - t0

const median = (series) => Array.from(series).sort((a, b) => a - b)[Math.floor(series.length / 2)]
const us = (ms) => `${(ms * 1000).toFixed(1)} µs`
console.log(`steps: ${STEPS} (${session.length} events)`)
console.log(`per step, stream-json (projection + JSON): ${us(median(claude))} median`)
console.log(`per step, events (JSON only):              ${us(median(events))} median`)
console.log(`result at ${STEPS} steps (summarize the turn): ${resultMs.toFixed(1)} ms`)
console.log(`output: stream-json ${(bytes.claude / 1e6).toFixed(1)} MB, events ${(bytes.events / 1e6).toFixed(1)} MB`)
