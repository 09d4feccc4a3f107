/**
 * The limit on Stop-hook continuations. A Stop hook that blocks forever (a test it keeps failing, a check the model
 * cannot satisfy) would keep a turn open without end, as it can in the peers. Rein honours at most
 * `maxContinuations` consecutive continuations of a turn, and at most `maxIdenticalReasons` consecutive ones that
 * give the same reason (a model making no progress); the block after that is overridden and the turn ends.
 */
export interface StopLimits {
  maxContinuations: number
  maxIdenticalReasons: number
}

export const DEFAULT_STOP_LIMITS: StopLimits = { maxContinuations: 8, maxIdenticalReasons: 3 }

export type StopRuling = { steer: true } | { steer: false; why: string }

/** Remembers the Stop blocks of the running turn. One guard per agent. */
export class StopGuard {
  private turn = -1
  private lastReason: string | undefined
  private identical = 0

  constructor(private readonly limits: StopLimits) {}

  /**
   * Whether a Stop block with `reason` may continue the turn. `continuations` is how many consecutive times the turn
   * has already been continued (the agent's count).
   */
  rule(turn: number, continuations: number, reason: string): StopRuling {
    if (turn !== this.turn || continuations === 0) this.reset(turn)
    if (continuations >= this.limits.maxContinuations) {
      return { steer: false, why: `it had already continued the turn ${continuations} times in a row` }
    }
    if (reason === this.lastReason && this.identical >= this.limits.maxIdenticalReasons) {
      return { steer: false, why: `it had given the same reason ${this.identical} times in a row` }
    }
    this.identical = reason === this.lastReason ? this.identical + 1 : 1
    this.lastReason = reason
    return { steer: true }
  }

  /** The Stop hooks let the turn end: the next block starts a fresh count. */
  clear(): void {
    this.lastReason = undefined
    this.identical = 0
  }

  private reset(turn: number): void {
    this.turn = turn
    this.clear()
  }
}
