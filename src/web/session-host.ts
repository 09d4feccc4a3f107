import { HeldSessions } from '../frontend/hosting/held-sessions.js'
import { openAgentWithContext, type OpenAgentOptions, type OpenedAgent } from '../runtime/open.js'
import { LiveSession } from './live-session.js'

/** How the server opens agents: `rein web`'s flags, the same options one-shot and RPC mode take. */
export type AgentDefaults = Omit<OpenAgentOptions, 'cwd' | 'resume' | 'continueLatest' | 'fork' | 'onProblem'>

/**
 * The sessions this server holds open for writing (src/frontend/hosting). A session is opened on the first change a
 * page asks for (a prompt, a mode switch) and stays open, holding its writer lease, until the server stops: only the
 * server writes, whatever number of pages watch. Opening the same session twice at once shares one open.
 */
export class SessionHost {
  private readonly held = new HeldSessions<LiveSession>((s) => s.opened.agent.interrupt())
  private readonly opening = new Set<(session: LiveSession) => void>()

  constructor(
    private readonly defaults: AgentDefaults,
    private readonly home: string,
    private readonly open: (options: OpenAgentOptions) => Promise<OpenedAgent> = openAgentWithContext,
  ) {}

  get(id: string): LiveSession | undefined {
    return this.held.get(id)
  }

  /** Calls `listener` with every session this server opens from now on (the listing's change nudges). */
  onOpen(listener: (session: LiveSession) => void): void {
    this.opening.add(listener)
  }

  /** Stops holding an idle session and releases its lease (before it is deleted); false when it was not held. */
  release(id: string): Promise<boolean> {
    return this.held.release(id, 'other')
  }

  private opened(session: LiveSession): LiveSession {
    for (const listener of this.opening) listener(session)
    return session
  }

  /** A new session in `cwd` (already checked by `sessionDirectory`). */
  async start(cwd: string): Promise<LiveSession> {
    return this.held.keep(this.opened(new LiveSession(await this.open({ ...this.defaults, cwd }), this.home)))
  }

  /** The live session `id`, resuming it in its own directory when this server does not hold it yet. */
  resume(id: string, cwd: string): Promise<LiveSession> {
    return this.held.resume(id, async () => this.opened(new LiveSession(await this.open({ ...this.defaults, cwd, resume: id }), this.home)))
  }

  /** Ends every running turn as a signal would, then flushes and releases every session. */
  async closeAll(reason: string): Promise<void> {
    await this.held.closeAll(reason)
  }
}
