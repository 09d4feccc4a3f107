import { openAgentWithContext, type OpenAgentOptions, type OpenedAgent } from '../runtime/open.js'
import { LiveSession } from './live-session.js'

/** How the server opens agents: `rein web`'s flags, the same options one-shot and RPC mode take. */
export type AgentDefaults = Omit<OpenAgentOptions, 'cwd' | 'resume' | 'continueLatest' | 'fork' | 'onProblem'>

/**
 * The sessions this server holds open for writing. A session is opened on the first change a page asks for (a
 * prompt, a mode switch) and stays open, holding its writer lease, until the server stops: only the server writes,
 * whatever number of pages watch. Opening the same session twice at once shares one open.
 */
export class SessionHost {
  private readonly live = new Map<string, LiveSession>()
  private readonly opening = new Map<string, Promise<LiveSession>>()

  constructor(
    private readonly defaults: AgentDefaults,
    private readonly home: string,
    private readonly open: (options: OpenAgentOptions) => Promise<OpenedAgent> = openAgentWithContext,
  ) {}

  get(id: string): LiveSession | undefined {
    return this.live.get(id)
  }

  /** A new session in `cwd` (already checked by `sessionDirectory`). */
  async start(cwd: string): Promise<LiveSession> {
    return this.keep(await this.open({ ...this.defaults, cwd }))
  }

  /** The live session `id`, resuming it in its own directory when this server does not hold it yet. */
  async resume(id: string, cwd: string): Promise<LiveSession> {
    const held = this.live.get(id)
    if (held) return held
    let pending = this.opening.get(id)
    if (!pending) {
      pending = this.open({ ...this.defaults, cwd, resume: id }).then((opened) => this.keep(opened))
      this.opening.set(id, pending)
      void pending.then(
        () => this.opening.delete(id),
        () => this.opening.delete(id),
      )
    }
    return pending
  }

  private keep(opened: OpenedAgent): LiveSession {
    const session = new LiveSession(opened, this.home)
    this.live.set(session.id, session)
    return session
  }

  /** Ends every running turn as a signal would, then flushes and releases every session. */
  async closeAll(reason: string): Promise<void> {
    await Promise.allSettled([...this.opening.values()])
    const sessions = [...this.live.values()]
    this.live.clear()
    for (const s of sessions) s.opened.agent.interrupt()
    await Promise.allSettled(sessions.map((s) => s.close(reason)))
  }
}
