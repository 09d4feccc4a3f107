import type { StepBudget } from '../agent/options.js'

/** The limits one subagent tree runs under (defaults and who may raise them: src/config/limits.ts, docs/trust.md). */
export interface TreeLimits {
  /** Child sessions, at every depth, one turn of the top-level agent may start. */
  perTurn: number
  /** Child sessions, at every depth, this run may start. */
  perRun: number
  /** Model requests of one top-level turn, the parent's and every descendant's together (`--max-turns`); none when undefined. */
  treeSteps?: number
}

/**
 * What the agents of one tree (the top-level agent and every subagent under it, at any depth) have spent. What holds:
 * a turn of the top-level agent starts at most `perTurn` children and the run at most `perRun`, whatever the depth
 * and parallel settings; with `treeSteps`, the model requests of the top-level turn and of every child it started
 * together never pass it. A refused child is never created, and the model reads why.
 */
export class TreeBudget {
  private turnChildren = 0
  private runChildren = 0
  private turnSteps = 0

  constructor(readonly limits: TreeLimits) {}

  /** The top-level agent's share: its first step opens a new turn, which resets the per-turn counts. */
  readonly parent: StepBudget = {
    take: (step) => {
      if (step === 1) {
        this.turnChildren = 0
        this.turnSteps = 0
      }
      return this.takeStep()
    },
  }

  /** A child's share, at any depth: each of its steps counts toward the top-level turn's. */
  readonly child: StepBudget = { take: () => this.takeStep() }

  /**
   * Claims one child session, or says in one sentence (for the model) why none may start. The sentence names the
   * setting, so a person reading the log knows what bounded the run.
   */
  claimChild(): string | undefined {
    if (this.turnChildren >= this.limits.perTurn) {
      return `Error: this turn has started ${this.turnChildren} subagents, the most one turn may (subagents.maxPerTurn ${this.limits.perTurn}); no subagent was started, so do the rest yourself.`
    }
    if (this.runChildren >= this.limits.perRun) {
      return `Error: this run has started ${this.runChildren} subagents, the most one run may (subagents.maxPerRun ${this.limits.perRun}); no subagent was started, so do the rest yourself.`
    }
    if (this.limits.treeSteps !== undefined && this.turnSteps >= this.limits.treeSteps) {
      return `Error: this turn has used its ${this.limits.treeSteps} model requests (--max-turns, counting every subagent's); no subagent was started.`
    }
    this.turnChildren++
    this.runChildren++
    return undefined
  }

  private takeStep(): boolean {
    if (this.limits.treeSteps !== undefined && this.turnSteps >= this.limits.treeSteps) return false
    this.turnSteps++
    return true
  }
}
