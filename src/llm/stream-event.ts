import { modelError } from './describe.js'

/**
 * One SSE event's data as the JSON object both wires send. Anything else is a `server` error (retried by policy):
 * a provider that sends garbage mid-stream is failing, not answering.
 */
export function parseStreamObject<T>(data: string): T {
  let parsed: unknown
  try {
    parsed = JSON.parse(data)
  } catch {
    throw modelError('server', { detail: `unparseable stream event: ${data.slice(0, 200)}` })
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw modelError('server', { detail: `stream event is not an object: ${data.slice(0, 200)}` })
  }
  return parsed as T
}
