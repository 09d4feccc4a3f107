import { describe, expect, it } from 'vitest'
import { Progress } from '../../src/fleet/progress.js'
import type { TaskResult } from '../../src/fleet/outcome.js'

const result = (status: TaskResult['status'], tokens: number, cost: number): TaskResult => ({
  id: 'x',
  status,
  session_id: null,
  result: '',
  usage: { input_tokens: tokens, cache_read_input_tokens: 0, output_tokens: 0, reasoning_tokens: 0 },
  cost_usd: cost,
  duration_ms: 1,
  attempts: 1,
})

describe('batch progress', () => {
  it('prints one line per change off a terminal, counting done, failed, running, tokens and cost', () => {
    const lines: string[] = []
    const progress = new Progress(3, (text) => lines.push(text), false)
    progress.startedOne()
    progress.startedOne()
    progress.finished(result('completed', 12_000, 0.01))
    progress.finished(result('timeout', 500, 0.002))
    expect(lines[0]).toBe('0/3 · done 0 · failed 0 · running 1 · 0 tokens · $0.0000 · ETA ?\n')
    expect(lines.at(-1)).toMatch(/^2\/3 · done 1 · failed 1 · running 0 · 12\.5k tokens · \$0\.0120 · ETA \d+:\d\d\n$/)
  })

  it('redraws one line with a bar on a terminal and ends it with a newline', () => {
    const out: string[] = []
    const progress = new Progress(2, (text) => out.push(text), true)
    progress.startedOne()
    progress.finished(result('completed', 1, 0))
    progress.end()
    expect(out[1]).toMatch(/^\r\x1b\[K\[#{10}\.{10}\] 1\/2 · done 1/)
    expect(out.at(-1)).toBe('\n')
  })
})
