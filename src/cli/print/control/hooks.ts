import type { Extension } from '../../../agent/extensions.js'
import { isHookEvent, type HookDefinition, type HookFile } from '../../../hooks/definitions.js'
import { createHooksExtension } from '../../../hooks/extension.js'
import { compileMatcher } from '../../../hooks/matcher.js'
import type { HookProcessResult } from '../../../hooks/runner.js'
import { DEFAULT_STOP_LIMITS } from '../../../hooks/stop-guard.js'
import type { ControlChannel } from './channel.js'
import type { InitializeRequest } from './wire.js'

/** Where an SDK callback "lives", as hook notices name it. */
const SDK_FILE: HookFile = { path: '<Agent SDK program>', dialect: 'claude', scope: 'user' }

/** Claude Code's limit for a callback whose matcher sets no `timeout`, in seconds. */
export const DEFAULT_CALLBACK_TIMEOUT_SEC = 60

/**
 * The hook callbacks an SDK program registered in `initialize`, as hook handlers that run through `hook_callback`
 * control requests: each event's matchers select them as a settings file's would, the payload is the one a command
 * hook reads on stdin, and the callback's answer is read as a command's JSON output. A callback that fails or does
 * not answer within its matcher's `timeout` is reported in one sentence and the event goes on as if it had not run
 * (src/hooks/verdict.ts). Events Rein does not run are returned by name, to be reported.
 */
export function sdkHooks(
  hooks: NonNullable<InitializeRequest['hooks']>,
  channel: ControlChannel,
  cwd: string,
): { extension: Extension; definitions: HookDefinition[]; ignored: string[] } {
  const definitions: HookDefinition[] = []
  const ignored: string[] = []
  for (const [event, matchers] of Object.entries(hooks)) {
    if (!isHookEvent(event)) {
      ignored.push(event)
      continue
    }
    for (const matcher of matchers) {
      const compiled = compileMatcher(matcher.matcher ?? '', 'claude')
      if ('error' in compiled) {
        ignored.push(`${event} (${compiled.error})`)
        continue
      }
      for (const callbackId of matcher.hookCallbackIds) {
        definitions.push({
          event,
          matcher: matcher.matcher ?? '',
          command: `SDK callback ${callbackId}`,
          timeoutSec: matcher.timeout ?? DEFAULT_CALLBACK_TIMEOUT_SEC,
          file: SDK_FILE,
          order: definitions.length,
          hash: `sdk:${callbackId}`,
          matches: (target) => compiled.test(target),
          run: (input, timeoutMs) => callBack(channel, callbackId, input, timeoutMs),
        })
      }
    }
  }
  const handle = createHooksExtension({ definitions, projectDir: cwd, env: {} }, DEFAULT_STOP_LIMITS)
  return { extension: { ...handle.extension, name: 'sdk-hooks' }, definitions, ignored }
}

/** One `hook_callback` round trip, answered as a hook process would have: its JSON output on stdout, exit 0. */
async function callBack(channel: ControlChannel, callbackId: string, input: string, timeoutMs: number): Promise<HookProcessResult> {
  const started = performance.now()
  const payload = JSON.parse(input) as Record<string, unknown>
  const toolUseId = typeof payload.tool_use_id === 'string' ? payload.tool_use_id : undefined
  const done = (part: Partial<HookProcessResult>): HookProcessResult => ({
    exitCode: 0,
    signal: null,
    stdout: '',
    stderr: '',
    timedOut: false,
    durationMs: performance.now() - started,
    ...part,
  })
  try {
    const answer = await channel.request(
      { subtype: 'hook_callback', callback_id: callbackId, input: payload, ...(toolUseId ? { tool_use_id: toolUseId } : {}) },
      { timeoutMs },
    )
    return done({ stdout: JSON.stringify(answer) })
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    if (/did not answer/.test(message)) return done({ timedOut: true, exitCode: null })
    return done({ exitCode: 1, stderr: message, spawnError: message })
  }
}
