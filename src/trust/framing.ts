/**
 * Producer framing (DESIGN principle 2): only Rein's context producers write `<system-reminder>` blocks. Text that
 * comes from outside (tool results, MCP results, hook output) has every opening and closing tag escaped the way the
 * workspace producer escapes files (`src/context/reminder.ts`): a backslash after `<` of an opening tag and before the
 * `/` of a closing one. The tags are matched loosely (any case, spaces inside the brackets), so a near-spelling
 * that a reader might still accept is escaped too; everything else is kept byte for byte.
 */
const OPEN_TAG = /<\s*system-reminder\s*>/gi
const CLOSE_TAG = /<\s*\/\s*system-reminder\s*>/gi

export function escapeProducerFraming(text: string): string {
  return text.replace(CLOSE_TAG, (tag) => tag.replace('/', '\\/')).replace(OPEN_TAG, (tag) => tag.replace('<', '<\\'))
}
