import type { SessionMode, SessionModeState, StopReason } from '@agentclientprotocol/sdk'
import { PERMISSION_MODES, type PermissionMode } from '../agent/types.js'
import type { TurnEndReason } from '../session/events.js'

/** Rein's permission modes as ACP session modes; the mode id is the permission mode's name. */
const MODES: Record<PermissionMode, Omit<SessionMode, 'id'>> = {
  default: { name: 'Default', description: 'Ask before edits and commands that are not allowed by a rule.' },
  'accept-edits': { name: 'Accept edits', description: 'Edit files in the workspace without asking, except protected paths (.git/, .rein/, …); ask for commands.' },
  plan: { name: 'Plan', description: 'Read and plan only: no edits, no commands with side effects.' },
  bypass: { name: 'Bypass permissions', description: 'Run every tool without asking, writes to protected paths (.git/, .rein/, …) included.' },
}

export function modeState(current: PermissionMode): SessionModeState {
  return {
    currentModeId: current,
    availableModes: PERMISSION_MODES.map((id) => ({ id, ...MODES[id] })),
  }
}

export function isPermissionMode(id: string): id is PermissionMode {
  return (PERMISSION_MODES as readonly string[]).includes(id)
}

/**
 * The ACP stop reason for how a turn ended. `error` has none: it is answered as a JSON-RPC error instead.
 * `blocked` (a hook or policy refused the prompt) is a refusal; `interrupted` (a turn a crash left open) and
 * `aborted` are cancellations; `max-steps` is ACP's `max_turn_requests`.
 */
export function stopReasonFor(reason: Exclude<TurnEndReason, 'error'>): StopReason {
  switch (reason) {
    case 'completed':
      return 'end_turn'
    case 'max-tokens':
      return 'max_tokens'
    case 'max-steps':
      return 'max_turn_requests'
    case 'blocked':
      return 'refusal'
    case 'aborted':
    case 'interrupted':
      return 'cancelled'
  }
}
