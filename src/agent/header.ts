import type { ModelAdapter, ModelConfig } from '../llm/adapter.js'
import type { ToolSchema } from '../llm/messages.js'
import { sameHeader, type RequestHeader } from '../session/request.js'
import type { Session } from '../session/session.js'

/**
 * Keeps the logged `request/header` current. The first request of an agent always logs one (`initial` on a new
 * session, `resume` or `fork` over a loaded one); later requests log one only when the system prompt, tools, wire or
 * model config changed. Whatever shapes the body is in the config the adapter reports (`headerConfig`).
 */
export class HeaderLog {
  private logged = false

  constructor(
    private readonly session: Session,
    private readonly adapter: ModelAdapter,
    private readonly forked: boolean,
  ) {}

  /** The header the next request is built from, logging it first when it is new. */
  current(fields: { config: ModelConfig; system: string; tools: ToolSchema[] }, changedReason = 'changed'): RequestHeader {
    const config = this.adapter.headerConfig?.(fields.config) ?? fields.config
    const wanted = { config, system: fields.system, tools: fields.tools, wire: this.adapter.wire }
    const last = this.session.last('request/header')?.data
    if (!this.logged) {
      this.logged = true
      const reason = last ? (this.forked ? 'fork' : 'resume') : 'initial'
      this.session.append('request/header', { reason, ...wanted })
      return { reason, ...wanted }
    }
    if (last && sameHeader(last, wanted)) return last
    this.session.append('request/header', { reason: changedReason, ...wanted })
    return { reason: changedReason, ...wanted }
  }
}
