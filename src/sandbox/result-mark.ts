/**
 * What a surface shows of the sandbox on one tool result: that the command ran confined, and what the sandbox stopped.
 * The one reader every surface calls (terminal UI, web page, ACP, stream-json), so none keeps a table of tool names:
 * a result is sandboxed when its `meta.sandboxed` is true (the bash tool and background-job starts set it), and the
 * note is the `[sandbox] …` line the sandbox appended to the output (violations.ts, sandbox.ts). Plain data in, plain
 * data out, no Node modules: the web page bundles this file too.
 */
export interface SandboxMark {
  /**
   * The sandbox's note without its `[sandbox] ` prefix and without the sentence addressed to the model: refusals and
   * violations, in sentences; absent when it stopped nothing.
   */
  note?: string
  /** Hosts the proxy refused during the command, as `meta.refusedHosts` lists them. */
  refusedHosts: string[]
}

/** The prefix of the sandbox's note in a command's output. */
export const SANDBOX_NOTE_PREFIX = '[sandbox] '

/** The note's last sentence when the command may be offered a run outside: addressed to the model, so no surface shows it. */
export const RUN_OUTSIDE_OFFER = 'If it must run outside the sandbox, call it again unchanged: the user will be asked.'

/** The mark of a tool result, or undefined when it did not run sandboxed. `text` is the result's text content. */
export function sandboxMark(meta: unknown, text: string): SandboxMark | undefined {
  if (!isRecord(meta) || meta.sandboxed !== true) return undefined
  const hosts = Array.isArray(meta.refusedHosts) ? meta.refusedHosts.filter((h): h is string => typeof h === 'string') : []
  const line = text.split('\n').findLast((l) => l.startsWith(SANDBOX_NOTE_PREFIX))
  const note = line?.slice(SANDBOX_NOTE_PREFIX.length).replace(` ${RUN_OUTSIDE_OFFER}`, '')
  return { refusedHosts: hosts, ...(note ? { note } : {}) }
}

/** The text of content blocks as a tool result holds them (images contribute nothing). */
export function resultText(content: readonly { type: string; text?: unknown }[]): string {
  return content.map((b) => (b.type === 'text' && typeof b.text === 'string' ? b.text : '')).join('')
}

/** The words a surface puts beside a sandboxed call's name or title. */
export const SANDBOXED_LABEL = 'sandboxed'

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
