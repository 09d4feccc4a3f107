/** Rein as a library: open a session, send input, watch events, await idle. See docs/sdk.md. */
export { createSession, resumeSession, events } from './sdk.js'
export { openAgent, openAgentWithContext, type OpenAgentOptions } from './runtime/open.js'
export { Agent } from './agent/agent.js'
export type { AgentApi, LiveEvent, PermissionMode, PermissionAsker, PermissionRequest, PermissionAnswer, TurnOutcome } from './agent/types.js'
export type {
  Extension,
  ExtensionContext,
  ExtensionCommand,
  CommandInput,
  CommandResult,
  SessionView,
  EnteringMessage,
  ToolCallInfo,
  PreToolDecision,
  PostToolOutcome,
  BeforeRequestInfo,
  RequestFailedInfo,
} from './agent/extensions.js'
export type { SessionEvent, EventDataMap, EventType, Source } from './session/events.js'
export type { Message, InputBlock, ContentBlock, Usage } from './llm/messages.js'
export type { Tool, ToolOutput, ToolContext } from './tools/tool.js'
