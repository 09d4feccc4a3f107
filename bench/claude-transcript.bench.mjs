// What keeping `transcript_path` current costs a hook run (src/hooks/claude-transcript.ts): before every hook run
// that has a matching handler, the transcript is brought up to date with the surface — appended when the surface
// only grew, rewritten whole otherwise (the first write of a process, after a compaction). For surfaces of 100,
// 1,000 and 5,000 events (a prompt, a reply with a tool call and a 2 KB tool result, repeated), prints the median
// time of a whole rewrite, of appending one more turn (3 events), and the file's size. Needs the build
// (`npm run build`). Temp dirs only.
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeTranscript } from '../dist/hooks/claude-transcript.js'

const RUNS = 15
const facts = { sessionId: 'bench', cwd: '/work/project', model: 'deepseek-flash', version: '0.0.0' }

function surface(events) {
  const out = []
  for (let seq = 0; out.length < events; seq++) {
    const kind = seq % 3
    const time = Date.UTC(2026, 0, 1) + seq * 1000
    if (kind === 0) out.push({ seq, time, type: 'user/message', data: { id: `u${seq}`, content: [{ type: 'text', text: 'Read the next file and tell me what it does.' }], source: { kind: 'user' } } })
    if (kind === 1)
      out.push({
        seq,
        time,
        type: 'assistant/message',
        data: { turn: seq, step: 1, message: { role: 'assistant', content: [{ type: 'text', text: 'Reading it.' }, { type: 'tool-call', id: `c${seq}`, name: 'read', arguments: '{"file_path":"src/a.ts"}' }] } },
      })
    if (kind === 2) out.push({ seq, time, type: 'tool/result', data: { turn: seq, step: 1, callId: `c${seq - 1}`, content: [{ type: 'text', text: 'x'.repeat(2048) }], isError: false } })
  }
  return out
}

const dir = mkdtempSync(join(tmpdir(), 'rein-transcript-bench-'))
try {
  for (const size of [100, 1_000, 5_000]) {
    const events = surface(size)
    const rewrites = []
    const appends = []
    let path = ''
    for (let i = 0; i < RUNS; i++) {
      const log = join(dir, `s${size}-${i}.jsonl`)
      let start = performance.now()
      path = writeTranscript(log, events.slice(0, size - 3), facts)
      rewrites.push(performance.now() - start)
      start = performance.now()
      writeTranscript(log, events, facts)
      appends.push(performance.now() - start)
    }
    const median = (xs) => xs.sort((a, b) => a - b)[RUNS >> 1].toFixed(2)
    const kb = statSync(path).size / 1024
    console.log(`${String(size).padStart(5)} events: rewrite ${median(rewrites)} ms, append a turn ${median(appends)} ms (medians), ${kb.toFixed(0)} KB`)
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
