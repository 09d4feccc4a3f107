import { z } from 'zod'
import type { Tool } from './tool.js'

const schema = z.object({ plan: z.string().min(1).describe('Markdown') })

const description = 'Plan mode only: when your plan is ready, present it for the user to approve. If approved, carry it out.'

type Args = z.infer<typeof schema>

/** Where the plan extension leaves the mode each approved call continues in, by call id (`ToolState.extra`). */
export const APPROVED_PLANS_KEY = 'plan.approved'

/**
 * Runs only once the user approved the plan: the plan extension (src/plan) puts the plan to the user in `preTool`,
 * switches the permission mode, and refuses the call otherwise, so this tells the model what now holds.
 */
export const exitPlanModeTool: Tool<Args> = {
  name: 'exit_plan_mode',
  description,
  schema,
  readOnly: false,
  kind: 'think',
  category: 'free',
  peerNames: { claudeCode: 'ExitPlanMode' },
  display: {
    verb: 'Present the plan',
    subject: () => undefined,
  },
  async run(_args, ctx) {
    const mode = (ctx.state.extra.get(APPROVED_PLANS_KEY) as Map<string, string> | undefined)?.get(ctx.callId) ?? 'default'
    const edits = mode === 'accept-edits' ? 'file edits are allowed without asking' : 'changes ask for approval as usual'
    return { content: [{ type: 'text', text: `The user approved your plan. Plan mode is over and the permission mode is now ${mode} (${edits}). Carry out the plan.` }] }
  },
}
