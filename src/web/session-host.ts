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

  constructor(
    private readonly defaults: AgentDefaults,
    private readonly home: string,
    private readonly open: (options: OpenAgentOptions) => Promise<OpenedAgent> = openAgentWithContext,
  ) {}

  get(id: string): LiveSession | undefined {
    return this.held.get(id)
  }

  /** A new session in `cwd` (already checked by `sessionDirectory`). */
  async start(cwd: string): Promise<LiveSession> {
    return this.held.keep(new LiveSession(await this.open({ ...this.defaults, cwd }), this.home))
  }

  /** The live session `id`, resuming it in its own directory when this server does not hold it yet. */
  resume(id: string, cwd: string): Promise<LiveSession> {
    return this.held.resume(id, async () => new LiveSession(await this.open({ ...this.defaults, cwd, resume: id }), this.home))
  }

  /** Ends every running turn as a signal would, then flushes and releases every session. */
  async closeAll(reason: string): Promise<void> {
    await this.held.closeAll(reason)
  }
}
