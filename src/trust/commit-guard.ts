import type { EventType } from '../session/events.js'
import type { CommitGuard } from '../session/session.js'
import { escapeProducerFraming } from './framing.js'

/**
 * The guard the session applies to every event's data before it is committed (`Session.setCommitGuard`): secrets
 * are redacted from every string, and text from outside Rein's producers (tool and MCP results, hook output) has its
 * `<system-reminder>` tags escaped. Applied once, at the one place events enter the log. `text` redacts text bound
 * for a person rather than the log (notices, errors).
 */
export function createCommitGuard(redact: (text: string) => string): CommitGuard {
  return {
    event: (type, data) => {
      // The header is Rein's own text (system prompt, schemas, config) and the agent sends the header it holds, not
      // the logged copy: rewriting it would make the log disagree with the bytes sent. A secret can reach it only by
      // coincidence, such as a short key that is part of the workspace's path.
      if (type === 'request/header') return data
      const foreign = type === 'tool/result' || type === 'hook/result' || isHookMessage(type, data)
      const clean = (text: string) => (foreign ? escapeProducerFraming(redact(text)) : redact(text))
      return mapStrings(data, clean)
    },
    text: redact,
  }
}

/** Context and steering messages a hook produced (their `source.kind` is `hook`). */
function isHookMessage(type: EventType, data: unknown): boolean {
  if (type !== 'context/message' && type !== 'steering/message') return false
  const source = (data as { source?: { kind?: unknown } } | null)?.source
  return source?.kind === 'hook'
}

/** A copy of plain JSON with `map` applied to every string value (keys are left alone). */
function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === 'string') return map(value)
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map))
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) out[key] = mapStrings(item, map)
    return out
  }
  return value
}
