// Shared by the session benchmarks: a deterministic, realistic turn (prompt, reasoning, assistant text, tool calls
// with long outputs). Not a benchmark itself (the runner only picks up *.bench.mjs).

/** A pseudo-random generator so every run writes the same bytes. */
export function random(seed = 42) {
  let state = seed >>> 0
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0
    return state / 2 ** 32
  }
}

const words = 'the parser returns a token stream where each node carries its span and the error recovery skips to the next statement boundary'.split(' ')

/** 64 KB of text made once; `prose` takes slices of it, so generating a turn costs little next to appending it. */
const corpus = (() => {
  const rand = random(1)
  let out = ''
  while (out.length < 65_536) out += `${words[Math.floor(rand() * words.length)]}${rand() < 0.1 ? '.\n' : ' '}`
  return out
})()

/**
 * @param {() => number} rand
 * @param {number} chars
 */
export function prose(rand, chars) {
  const length = Math.min(Math.floor(chars), corpus.length)
  const start = Math.floor(rand() * (corpus.length - length))
  return corpus.slice(start, start + length)
}

/**
 * Appends one turn of `steps` steps to `session`; tool outputs of 1–24 KB (or `options.outputChars`), reasoning of
 * 0.5–4 KB. `options.request(session, turn, step)` is called where the agent logs a step's `request/sent` (after the
 * step's messages entered, before the answer): bench/request-fixture.mjs logs the header and the exact digest there.
 *
 * @param {import('../src/session/session.js').Session} session
 * @param {number} turn
 * @param {() => number} rand
 * @param {{ request?: (session: import('../src/session/session.js').Session, turn: number, step: number) => void, outputChars?: [number, number] }} [options]
 */
export function appendRealisticTurn(session, turn, rand, steps = 3, options = {}) {
  for (const at of turnSteps(session, turn, rand, steps, options)) options.request?.(session, at.turn, at.step)
}

/**
 * `appendRealisticTurn` with a `request` that may wait (a compaction's summary request, bench/request-fixture.mjs's
 * `compactingRecorder`): the same events in the same order, each request awaited where the agent sends it.
 *
 * @param {import('../src/session/session.js').Session} session
 * @param {number} turn
 * @param {() => number} rand
 * @param {{ request?: (session: import('../src/session/session.js').Session, turn: number, step: number) => Promise<void> | void, outputChars?: [number, number] }} [options]
 */
export async function appendRealisticTurnAsync(session, turn, rand, steps = 3, options = {}) {
  for (const at of turnSteps(session, turn, rand, steps, options)) await options.request?.(session, at.turn, at.step)
}

/**
 * The turn's events, appended as the generator runs; it yields `{turn, step}` where the step's request is sent.
 *
 * @param {import('../src/session/session.js').Session} session
 * @param {number} turn
 * @param {() => number} rand
 * @param {number} steps
 * @param {{ outputChars?: [number, number] }} options
 * @returns {Generator<{ turn: number, step: number }>}
 */
function* turnSteps(session, turn, rand, steps, options) {
  const [outMin, outSpan] = options.outputChars ?? [1000, 23000]
  /** @param {string} t */
  const text = (t) => [{ type: /** @type {const} */ ('text'), text: t }]
  session.append('turn/start', { turn })
  for (let step = 1; step <= steps; step++) {
    session.append('step/start', { turn, step })
    if (step === 1) session.append('user/message', { id: `u${turn}`, content: text(prose(rand, 200)), source: { kind: 'user' } })
    yield { turn, step }
    const last = step === steps
    const calls = last ? [] : Array.from({ length: 1 + Math.floor(rand() * 2) }, (_, i) => ({
      type: /** @type {const} */ ('tool-call'), id: `call_${turn}_${step}_${i}`, name: rand() < 0.5 ? 'read' : 'bash',
      arguments: JSON.stringify({ path: `src/module${i}/file${step}.ts` }),
    }))
    session.append('assistant/message', {
      turn, step,
      message: { role: 'assistant', content: [{ type: 'reasoning', text: prose(rand, 500 + rand() * 3500) }, { type: 'text', text: prose(rand, 100 + rand() * 900) }, ...calls] },
      usage: { inputUncached: 120, inputCacheRead: 4000, output: 300, reasoning: 200 },
    })
    for (const call of calls) {
      session.append('tool/call', { turn, step, callId: call.id, name: call.name, arguments: call.arguments })
      session.append('tool/result', { turn, step, callId: call.id, content: text(prose(rand, outMin + rand() * outSpan)), isError: false })
    }
    session.append('step/end', { turn, step })
  }
  session.append('turn/end', { turn, reason: 'completed' })
}
