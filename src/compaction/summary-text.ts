/**
 * The words of compaction. The instruction is the final message of the summary request; the frame opens the
 * summary that replaces the shadowed messages. Both are the compaction producer's own content: the surface adds
 * nothing around them.
 */

import { counted, grouped } from '../text/count.js'

export function summaryInstruction(focus?: string): string {
  const lines = [
    'The conversation above is about to be replaced by a summary so the session can continue in a smaller context.',
    'Write that summary now. Do not call any tools. Be specific and complete; the summary is all that will remain. Use these sections:',
    "1. The user's original request and every constraint or preference they stated (quote them where wording matters).",
    '2. Files read, created or changed, with what changed in each.',
    '3. Errors hit and how each was fixed (or that it is still open).',
    '4. The current task, what was being done when this summary was requested, and the exact next step.',
    '5. Commands or background jobs still running, with their ids.',
    '6. The open todo list.',
  ]
  if (focus?.trim()) lines.push(`The user asked the summary to focus on: ${focus.trim()}`)
  return lines.join('\n')
}

export function framedSummary(summary: string, todos: readonly { content: string; status: string }[]): string {
  const open = todos.filter((t) => t.status !== 'completed')
  const todoText = open.length
    ? `\n\nThe todo list when the summary was written:\n${open.map((t) => `- [${t.status}] ${t.content}`).join('\n')}`
    : ''
  return (
    'This is a summary of the earlier part of this session, written when the conversation was compacted to fit the ' +
    'context window. The messages it summarizes are no longer shown; continue the work from here.\n\n' +
    summary.trim() +
    todoText
  )
}

/**
 * Why a compaction found nothing to shadow, in numbers. `conversation` is the whole surface in units ("exchanges");
 * `kept` is what the trigger keeps verbatim: a number of units (manual) or a share of the window (automatic).
 */
export function nothingToCompact(
  conversation: { units: number; tokens: number },
  kept: { units: number } | { tokens: number; ratio: number; window: number },
): string {
  if (conversation.units === 0) return 'Nothing to compact: the conversation is empty.'
  const has = `the conversation has ${counted(conversation.units, 'exchange')} (${counted(conversation.tokens, 'token')})`
  if ('units' in kept) {
    return kept.units <= 1
      ? `Nothing to compact: ${has}, and the newest exchange is always kept.`
      : `Nothing to compact: ${has}, and keep=${kept.units} keeps the newest ${grouped(kept.units)}.`
  }
  if (conversation.units === 1) return `Nothing to compact: ${has}, and the newest exchange is always kept.`
  return (
    `Nothing to compact: ${has}, all within the ${counted(kept.tokens, 'token')} kept verbatim ` +
    `(compaction.keepRatio ${kept.ratio} of the ${grouped(kept.window)}-token window).`
  )
}

/** Head and tail of a long tool output, with a line saying what was cut. */
export function trimmedOutput(text: string, keepChars: number): string {
  if (text.length <= keepChars * 2) return text
  const head = text.slice(0, keepChars)
  const tail = text.slice(-keepChars)
  const cut = text.length - keepChars * 2
  return `${head}\n[… ${cut} characters of this old tool output were trimmed to save context …]\n${tail}`
}
