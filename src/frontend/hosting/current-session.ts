import type { OpenAgentOptions, OpenedAgent } from '../../runtime/open.js'

/**
 * The one session a single-session surface (RPC) drives, and how it moves to another: a fork, or the fork a rewind
 * of the conversation made. Moving detaches the surface from the old agent, closes it (releasing its writer lease
 * and flushing its log) and opens the new one with the surface's own options, then attaches the surface to it.
 */
export class CurrentSession {
  private detach: () => void

  constructor(
    private current: OpenedAgent,
    private readonly options: OpenAgentOptions,
    /** Subscribes the surface to an agent's events (and installs its permission asker); returns the unsubscribe. */
    private readonly attach: (opened: OpenedAgent) => () => void,
    private readonly open: (options: OpenAgentOptions) => Promise<OpenedAgent>,
  ) {
    this.detach = attach(current)
  }

  get opened(): OpenedAgent {
    return this.current
  }

  /** Continues in a fork of `id` (up to `seq`, else whole); the old agent closes with `reason`. */
  fork(id: string, seq: number | undefined, reason: string): Promise<OpenedAgent> {
    return this.moveTo({ resume: undefined, continueLatest: false, fork: { id, seq } }, reason)
  }

  /** Continues in the stored session `id`; the old agent closes with `reason`. */
  resume(id: string, reason: string): Promise<OpenedAgent> {
    return this.moveTo({ resume: id, continueLatest: false, fork: undefined }, reason)
  }

  /** Detaches and closes the agent for good. */
  async close(reason: string): Promise<void> {
    this.detach()
    await this.current.agent.close(reason)
  }

  private async moveTo(which: Pick<OpenAgentOptions, 'resume' | 'continueLatest' | 'fork'>, reason: string): Promise<OpenedAgent> {
    this.detach()
    await this.current.agent.close(reason)
    this.current = await this.open({ ...this.options, ...which })
    this.detach = this.attach(this.current)
    return this.current
  }
}
