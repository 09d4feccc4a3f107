import type { SessionStartSource } from '../agent/extensions.js'
import { forkSession } from '../session/fork.js'
import { Session, type LoadOptions } from '../session/session.js'
import { listSessions, resolveSessionId } from '../store/listing.js'
import type { SessionStore } from '../store/store.js'

/** Which session to open: a new one, a stored one (by id or unique prefix), the latest of the cwd, or a fork. */
export interface SessionChoice {
  resume?: string
  continueLatest?: boolean
  fork?: { id: string; seq?: number }
  /** Resume from the log's sidecar and tail (`Session.load`'s `fromSidecar`): for front ends that show no history. */
  resumeFromSidecar?: boolean
  /** The id of a new session (`--session-id`; rein batch names its tasks' sessions). */
  sessionId?: string
}

/** Opens the chosen session for writing, and says how the agent comes to it (the first header's reason). */
export async function openSession(
  store: SessionStore,
  cwd: string,
  choice: SessionChoice,
  load: LoadOptions = {},
): Promise<{ session: Session; start: SessionStartSource }> {
  if (choice.resume) return { session: await Session.load(store, await resolveSessionId(store, choice.resume, cwd), { ...load, fromSidecar: choice.resumeFromSidecar }), start: 'resume' }
  if (choice.continueLatest) {
    const latest = (await listSessions(store, cwd))[0]
    if (!latest) throw new Error(`There is no earlier session in ${cwd} to continue; start one without --continue.`)
    return { session: await Session.load(store, latest.id, { ...load, fromSidecar: choice.resumeFromSidecar }), start: 'resume' }
  }
  if (choice.fork) {
    const id = await resolveSessionId(store, choice.fork.id, cwd)
    return { session: await forkSession(store, id, choice.fork.seq), start: 'fork' }
  }
  return { session: await Session.create(store, { cwd, ...(choice.sessionId ? { id: choice.sessionId } : {}) }), start: 'startup' }
}
