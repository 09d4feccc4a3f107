import { tokensOf, type TaskResult } from './outcome.js'

/**
 * The batch's progress on stderr: done / failed / running, tokens, cost and ETA. On a terminal it is one line
 * redrawn in place with a bar; otherwise (logs, CI) a line is printed whenever a task starts or ends.
 */
export class Progress {
  private done = 0
  private failed = 0
  private running = 0
  private tokens = 0
  private cost = 0
  private finishedHere = 0
  private readonly started = Date.now()

  constructor(
    /** Tasks this run has to finish (those already in the results file are not counted). */
    private readonly total: number,
    private readonly write: (text: string) => void,
    private readonly tty: boolean,
  ) {}

  startedOne(): void {
    this.running++
    this.show()
  }

  finished(result: TaskResult): void {
    this.running = Math.max(0, this.running - 1)
    this.finishedHere++
    if (result.status === 'completed') this.done++
    else this.failed++
    this.tokens += tokensOf(result)
    this.cost += result.cost_usd
    this.show()
  }

  /** A started task that ended without a result (interrupted). */
  stopped(): void {
    this.running = Math.max(0, this.running - 1)
    this.show()
  }

  /** Sets the counts wholesale (the queue-backed batch reads them from the database). */
  set(counts: { done: number; failed: number; running: number; tokens: number; cost: number; finished: number }): void {
    const changed = counts.done !== this.done || counts.failed !== this.failed || counts.running !== this.running
    this.done = counts.done
    this.failed = counts.failed
    this.running = counts.running
    this.tokens = counts.tokens
    this.cost = counts.cost
    this.finishedHere = counts.finished
    if (changed) this.show()
  }

  /** Ends the redrawn line. */
  end(): void {
    if (this.tty) this.write('\n')
  }

  line(): string {
    const finished = this.done + this.failed
    const left = this.total - finished
    const elapsed = Date.now() - this.started
    const eta = this.finishedHere && left > 0 ? clock((elapsed / this.finishedHere) * left) : left > 0 ? '?' : '0:00'
    const tokens = this.tokens >= 10_000 ? `${(this.tokens / 1000).toFixed(1)}k` : String(this.tokens)
    return `${finished}/${this.total} · done ${this.done} · failed ${this.failed} · running ${this.running} · ${tokens} tokens · $${this.cost.toFixed(4)} · ETA ${eta}`
  }

  private show(): void {
    if (!this.tty) return this.write(`${this.line()}\n`)
    const width = 20
    const filled = this.total ? Math.round(((this.done + this.failed) / this.total) * width) : width
    this.write(`\r\x1b[K[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${this.line()}`)
  }
}

/** m:ss, or h:mm:ss past an hour. */
function clock(ms: number): string {
  const s = Math.round(ms / 1000)
  const h = Math.floor(s / 3600)
  const m = Math.floor((s % 3600) / 60)
  const sec = String(s % 60).padStart(2, '0')
  return h ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`
}
