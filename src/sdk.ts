import { openAgent, type OpenAgentOptions } from './runtime/open.js'
import type { Agent } from './agent/agent.js'
import type { LiveEvent } from './agent/types.js'

/** Starts a new session in `cwd` (or resumes one with `resume`, forks with `fork`) and returns its agent. */
export function createSession(options: OpenAgentOptions): Promise<Agent> {
  return openAgent(options)
}

/** Resumes a stored session by id or unique prefix. */
export function resumeSession(id: string, options: Omit<OpenAgentOptions, 'resume'>): Promise<Agent> {
  return openAgent({ ...options, resume: id })
}

/**
 * The agent's live events as an async iterator, ending when the agent goes idle (or, with `untilIdle: false`,
 * when the consumer stops). Events arriving faster than they are consumed are buffered in order.
 */
export async function* events(agent: Agent, options: { untilIdle?: boolean } = {}): AsyncGenerator<LiveEvent> {
  const untilIdle = options.untilIdle ?? true
  const buffer: LiveEvent[] = []
  let wake: (() => void) | null = null
  const unsubscribe = agent.subscribe((event) => {
    buffer.push(event)
    wake?.()
  })
  try {
    for (;;) {
      while (buffer.length) {
        const event = buffer.shift() as LiveEvent
        yield event
        if (untilIdle && event.type === 'idle') return
      }
      if (untilIdle && !agent.busy) return
      await new Promise<void>((resolve) => (wake = resolve))
      wake = null
    }
  } finally {
    unsubscribe()
  }
}
