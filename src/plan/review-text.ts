import type { EventDataMap } from '../session/events.js'

/** How `rein -p` shows a reviewed plan on stderr: what happened in one sentence, then the plan itself. */
export function planReviewText(review: EventDataMap['plan/reviewed']): string {
  const head =
    review.outcome === 'approved'
      ? `rein: plan approved; continuing in ${review.mode} mode.`
      : review.outcome === 'unanswered'
        ? 'rein: the model presented a plan; approve plans with --approve-plan default or --approve-plan accept-edits.'
        : 'rein: plan not approved; the model keeps planning.'
  return `${head}\n${review.plan.replace(/\s*$/, '')}\n`
}
