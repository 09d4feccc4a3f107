import type { EnteringMessage, Extension, PreToolDecision, ToolCallInfo, ExtensionContext } from '../agent/extensions.js'
import type { PermissionAnswer } from '../agent/types.js'
import { producedMessages, surfaceOf } from '../context/produced-messages.js'
import { escapeReminderText, systemReminder } from '../context/reminder.js'
import type { EventDataMap } from '../session/events.js'
import { APPROVED_PLANS_KEY } from '../tools/exit-plan-mode.js'
import type { ToolState } from '../tools/tool.js'

/** The mode an approved plan continues in. */
export type PlanApproval = 'default' | 'accept-edits'
export const PLAN_APPROVALS: readonly PlanApproval[] = ['default', 'accept-edits']

/** The `source.kind` of the message that restores an approved plan after compaction. */
export const APPROVED_PLAN = 'approved-plan'

export interface PlanModeOptions {
  toolState: ToolState
  /** Approve every plan without asking, continuing in this mode (`rein -p --approve-plan`). */
  approve?: PlanApproval
}

type Review = EventDataMap['plan/reviewed']

/**
 * Plan mode that ends in an approved plan. `exit_plan_mode` is judged here, in `preTool`:
 * - outside plan mode it is refused (the model has nothing to leave);
 * - in plan mode the plan goes to the user through the front end's permission prompt, where allow-once means
 *   "approve, continue in default", allow-always "approve, continue in accept-edits", and deny "keep planning" (a
 *   note given with it reaches the model verbatim as steering); `--approve-plan` answers without asking;
 * - every answer is logged as `plan/reviewed` before the call, and an approval switches the permission mode.
 * After a compaction that shadowed the approved plan's call, the plan is put back as a context message, as the todo
 * list is kept in the summary.
 */
export function planMode(options: PlanModeOptions): Extension {
  const approved = new Map<string, PlanApproval>()
  options.toolState.extra.set(APPROVED_PLANS_KEY, approved)

  return {
    name: 'plan-mode',
    async preTool(call, agent) {
      if (call.name !== 'exit_plan_mode') return
      const plan = typeof (call.input as { plan?: unknown })?.plan === 'string' ? ((call.input as { plan: string }).plan) : ''
      if (agent.permissionMode !== 'plan') {
        return deny(`exit_plan_mode is only for plan mode, and the permission mode is ${agent.permissionMode}; carry on with the task without it.`)
      }
      if (!plan.trim()) return deny('exit_plan_mode needs your plan, in Markdown, as plan.')
      const answer = await reviewOf(call, plan, agent)
      const review = reviewFor(call.callId, plan, answer)
      agent.record('plan/reviewed', review)
      if (review.outcome === 'approved') {
        approved.set(call.callId, review.mode!)
        agent.setPermissionMode(review.mode!)
        return { action: 'allow', reason: `plan approved (${review.mode})` }
      }
      if (review.outcome === 'unanswered') {
        return deny(
          'The plan needs the user’s approval and nothing here can ask for it; end your answer with the plan so the user can read it (with rein -p they approve with --approve-plan).',
        )
      }
      if (review.feedback) agent.steer(review.feedback, { kind: 'user', plan: call.callId })
      return deny(
        review.feedback
          ? 'The user did not approve the plan and wants you to keep planning; their feedback follows. Revise the plan and call exit_plan_mode again.'
          : 'The user did not approve the plan and wants you to keep planning. Ask what should change, or revise the plan and call exit_plan_mode again.',
      )
    },
    preStep(_step, entering, agent) {
      const missing = approvedPlanMissing(agent, entering)
      if (!missing) return
      const message: EnteringMessage = {
        type: 'context/message',
        content: [{ type: 'text', text: approvedPlanText(missing.plan) }],
        source: { kind: APPROVED_PLAN },
        meta: { callId: missing.callId },
      }
      return { action: 'enter', messages: [...entering, message] }
    },
  }

  async function reviewOf(call: ToolCallInfo, plan: string, agent: ExtensionContext): Promise<PermissionAnswer | undefined> {
    if (options.approve) return options.approve === 'accept-edits' ? { outcome: 'allow-always' } : { outcome: 'allow-once' }
    return agent.ask({ call, reason: `The plan is ready for review:\n\n${plan}` })
  }
}

function deny(reason: string): PreToolDecision {
  return { action: 'deny', reason }
}

function reviewFor(callId: string, plan: string, answer: PermissionAnswer | undefined): Review {
  if (!answer || answer.outcome === 'unanswered') return { callId, plan, outcome: 'unanswered' }
  if (answer.outcome === 'allow-once') return { callId, plan, outcome: 'approved', mode: 'default' }
  if (answer.outcome === 'allow-always') return { callId, plan, outcome: 'approved', mode: 'accept-edits' }
  return { callId, plan, outcome: 'kept-planning', ...(answer.note ? { feedback: answer.note } : {}) }
}

/** The block that restores an approved plan after compaction. */
export function approvedPlanText(plan: string): string {
  return systemReminder(`The plan the user approved earlier in this session (kept across compaction):\n\n${escapeReminderText(plan)}`)
}

/**
 * The latest approved plan when a compaction since shadowed the call that carried it and no restoring message is on
 * the surface or entering; undefined otherwise. Cheap while no compaction followed the approval.
 */
function approvedPlanMissing(agent: ExtensionContext, entering: readonly EnteringMessage[]): Review | undefined {
  const { session } = agent
  const review = session.last('plan/reviewed')
  if (!review || review.data.outcome !== 'approved') return undefined
  const compacted = session.last('compaction/end')
  if (!compacted || compacted.seq < review.seq) return undefined
  const surface = surfaceOf(agent)
  const callId = review.data.callId
  const carried = surface.some(
    (e) => e.type === 'assistant/message' && e.data.message.content.some((b) => b.type === 'tool-call' && b.id === callId),
  )
  if (carried) return undefined
  const restored = producedMessages(APPROVED_PLAN, surface, entering).some((m) => (m.meta as { callId?: string } | undefined)?.callId === callId)
  return restored ? undefined : review.data
}
