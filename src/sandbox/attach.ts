import type { Sandbox } from './sandbox.js'

/**
 * Where a session's sandbox lives for the tools: in their shared tool state's `extra` map (passed as the map, so
 * this floor needs nothing of src/tools). Every tool state the permission policy guards carries the same sandbox,
 * so a call the policy lets through because it runs confined does run confined, in a subagent too.
 */
const KEY = 'sandbox'

export function attachSandbox(extra: Map<string, unknown>, sandbox: Sandbox): void {
  extra.set(KEY, sandbox)
}

export function sandboxIn(extra: Map<string, unknown>): Sandbox | undefined {
  return extra.get(KEY) as Sandbox | undefined
}
