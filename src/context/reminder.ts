/**
 * The `<system-reminder>` framing that Rein's context producers write into their own content (DESIGN principle 2:
 * the projection adds nothing, so the producer's text is exactly what the model reads).
 */

const OPEN = '<system-reminder>'
const CLOSE = '</system-reminder>'

/**
 * A closing tag in any spelling a reader might accept: any letter case, spaces inside the brackets. Matching loosely
 * is the safe side: a tag that merely looks like a close is escaped too.
 */
const CLOSE_TAG = /<\s*\/\s*system-reminder\s*>/gi

/**
 * Makes text safe to place inside a reminder block: every closing `</system-reminder>` tag becomes
 * `<\/system-reminder>` (a backslash before the slash, as in JavaScript strings), so a file cannot end the block
 * early and have its remaining text read as if it came from outside the block. Everything else is kept byte for byte.
 */
export function escapeReminderText(text: string): string {
  return text.replace(CLOSE_TAG, (tag) => tag.replace('/', '\\/'))
}

/** One complete reminder block around `body`, which the caller has already escaped. No trailing newline. */
export function systemReminder(body: string): string {
  return `${OPEN}\n${body}\n${CLOSE}`
}
