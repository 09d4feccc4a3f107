import type { ModelConfig } from '../llm/adapter.js'
import { isSurfaceType, type JsonValue, type Source } from '../session/events.js'
import type { Session } from '../session/session.js'
import type { ExtensionContext } from './extensions.js'
import type { ContentInput, PermissionAsker, PermissionMode } from './types.js'

/** The parts of the agent an extension context reads through; live, so a mode or model change shows at once. */
export interface ContextSource {
  readonly session: Session
  readonly permissionMode: PermissionMode
  readonly config: ModelConfig
  inject(content: ContentInput, source?: Source, meta?: JsonValue): string
  steer(content: ContentInput, source?: Source): string
  notify(level: 'info' | 'warning' | 'error', message: string): void
  stopTurn(message: string): void
  setPermissionMode(mode: PermissionMode): void
  setModel(config: Partial<ModelConfig>): void
  readonly permissionAsker?: PermissionAsker
  /** The running turn's or command's signal: a question it asked closes when it is cancelled. */
  readonly activeSignal?: AbortSignal
}

/** The narrow view of one agent that every extension point receives (see `ExtensionContext`). */
export function extensionContext(agent: ContextSource): ExtensionContext {
  const session = agent.session
  return {
    cwd: session.cwd,
    session: {
      id: session.id,
      path: session.path,
      surface: () => session.surface(),
      last: (type) => session.last(type),
    },
    get model() {
      return agent.config.model
    },
    get permissionMode() {
      return agent.permissionMode
    },
    inject: (content, source, meta) => agent.inject(content, source, meta),
    steer: (content, source) => agent.steer(content, source),
    notify: (level, message) => agent.notify(level, message),
    stopTurn: (message) => agent.stopTurn(message),
    setPermissionMode: (mode) => agent.setPermissionMode(mode),
    setModel: (model) => agent.setModel({ model }),
    ask: async (request) => {
      const asker = agent.permissionAsker
      if (!asker) return undefined
      const signal = agent.activeSignal ?? new AbortController().signal
      if (signal.aborted) return { outcome: 'deny', note: 'The question was cancelled with its turn.' }
      return asker(request, signal)
    },
    record: (type, data) => {
      if (isSurfaceType(type)) throw new Error(`an extension cannot record ${type}: model input enters through inject or steer.`)
      session.append(type, data)
    },
  }
}
