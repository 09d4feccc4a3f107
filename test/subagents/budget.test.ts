import { describe, expect, it } from 'vitest'
import { TreeBudget } from '../../src/subagents/budget.js'

describe('the budget of one subagent tree', () => {
  it('starts at most perTurn children in one turn, and as many again after the next turn opens', () => {
    const budget = new TreeBudget({ perTurn: 2, perRun: 10 })
    budget.parent.take(1)
    expect([budget.claimChild(), budget.claimChild()]).toEqual([undefined, undefined])
    expect(budget.claimChild()).toMatch(/^Error: this turn has started 2 subagents, the most one turn may \(subagents\.maxPerTurn 2\)/)
    budget.parent.take(2)
    expect(budget.claimChild()).toMatch(/subagents\.maxPerTurn/)
    budget.parent.take(1)
    expect(budget.claimChild()).toBeUndefined()
  })

  it('starts at most perRun children over every turn of the run', () => {
    const budget = new TreeBudget({ perTurn: 2, perRun: 3 })
    for (let turn = 0; turn < 2; turn++) {
      budget.parent.take(1)
      budget.claimChild()
      budget.claimChild()
    }
    expect(budget.claimChild()).toMatch(/^Error: this run has started 3 subagents, the most one run may \(subagents\.maxPerRun 3\)/)
  })

  it('counts the steps of the parent and of every child toward treeSteps, and refuses children once it is spent', () => {
    const budget = new TreeBudget({ perTurn: 10, perRun: 10, treeSteps: 3 })
    expect(budget.parent.take(1)).toBe(true)
    expect(budget.claimChild()).toBeUndefined()
    expect(budget.child.take(1)).toBe(true)
    expect(budget.child.take(2)).toBe(true)
    expect(budget.child.take(3)).toBe(false)
    expect(budget.parent.take(2)).toBe(false)
    expect(budget.claimChild()).toMatch(/--max-turns/)
    // A new turn of the parent has the whole budget again.
    expect(budget.parent.take(1)).toBe(true)
  })
})
