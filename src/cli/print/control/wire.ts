import { z } from 'zod'

/**
 * The Claude Agent SDK's control protocol as it travels on stdin and stdout beside the stream-json messages
 * (docs/claude-code.md, "Control protocol"). Either side sends `control_request`s; the receiver answers each with one
 * `control_response` echoing its `request_id`. A request's own fields are checked by the handler of its subtype, so
 * an envelope is valid whatever the subtype, and a subtype Rein does not know still gets its error answer.
 */
const requestId = z.string().min(1).max(200)

export const controlRequestLine = z.object({
  type: z.literal('control_request'),
  request_id: requestId,
  request: z.looseObject({ subtype: z.string().min(1) }),
})

export const controlResponseLine = z.object({
  type: z.literal('control_response'),
  response: z.union([
    z.looseObject({ subtype: z.literal('success'), request_id: requestId, response: z.record(z.string(), z.unknown()).optional() }),
    z.looseObject({ subtype: z.literal('error'), request_id: requestId, error: z.string() }),
  ]),
})

export const controlCancelLine = z.object({ type: z.literal('control_cancel_request'), request_id: requestId })

export type ControlRequestLine = z.infer<typeof controlRequestLine>
export type ControlResponseLine = z.infer<typeof controlResponseLine>
export type ControlCancelLine = z.infer<typeof controlCancelLine>
export type ControlLine = ControlRequestLine | ControlResponseLine | ControlCancelLine

/** The line types of the control protocol, which stdin carries beside `user` messages. */
export const CONTROL_TYPES: ReadonlySet<string> = new Set(['control_request', 'control_response', 'control_cancel_request'])

/** Reads a line of one of the control types, or says in a few words what is wrong with it. */
export function parseControlLine(value: unknown): { line: ControlLine } | { problem: string } {
  const type = (value as { type?: unknown }).type
  const schema = type === 'control_request' ? controlRequestLine : type === 'control_response' ? controlResponseLine : controlCancelLine
  const parsed = schema.safeParse(value)
  if (parsed.success) return { line: parsed.data }
  const issue = parsed.error.issues[0]
  return { problem: `${issue.path.length ? issue.path.join('.') : 'the line'}: ${issue.message}` }
}

/** The SDK's hook registration in `initialize`: per event, matchers each naming the callbacks to call by id. */
export const hookMatchers = z.record(
  z.string(),
  z.array(
    z.looseObject({
      matcher: z.string().optional(),
      hookCallbackIds: z.array(z.string().min(1)),
      /** Seconds, as in a settings file. */
      timeout: z.number().positive().optional(),
    }),
  ),
)

export const initializeRequest = z.looseObject({
  subtype: z.literal('initialize'),
  hooks: hookMatchers.optional(),
  sdkMcpServers: z.array(z.string().min(1)).optional(),
  systemPrompt: z.array(z.string()).optional(),
  appendSystemPrompt: z.string().optional(),
  /** Checked agent by agent (`agentTypesFrom`): one bad agent is left out, the rest register. */
  agents: z.record(z.string(), z.unknown()).optional(),
  jsonSchema: z.unknown().optional(),
  /** Sent here instead of as flags when the program asks for it (`settingsDelivery: 'initialize'`, …); read by init-options.ts. */
  settings: z.unknown().optional(),
  disallowedTools: z.unknown().optional(),
  managedSettings: z.unknown().optional(),
  mcpServers: z.unknown().optional(),
})
export type InitializeRequest = z.infer<typeof initializeRequest>

/** What the SDK answers to `can_use_tool`: its `PermissionResult`. */
export const permissionResult = z.union([
  z.looseObject({ behavior: z.literal('allow'), updatedInput: z.record(z.string(), z.unknown()).optional(), updatedPermissions: z.unknown().optional() }),
  z.looseObject({ behavior: z.literal('deny'), message: z.string().optional(), interrupt: z.boolean().optional() }),
])
