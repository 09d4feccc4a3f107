import type { SessionSummary } from './store.js'

/**
 * What a listing needs from one session, accumulated line by line without parsing most lines: the header, the
 * first prompt and title events are parsed; every other line is only matched at its start. Plain JSON, so the JSONL
 * store can keep it in its index and continue it when the file grows.
 */
export interface SummaryState {
  lines: number
  id?: string
  cwd?: string
  createdAt?: number
  parent?: { id: string; seq: number }
  /** A subagent's session: the parent session and the agent type (from the header's `subagent`). */
  subagent?: { parent: string; agent: string }
  turns: number
  updatedAt?: number
  title?: string
  firstPrompt?: string
}

export function emptySummaryState(): SummaryState {
  return { lines: 0, turns: 0 }
}

/** Characters of a line's start that `feedSummary` looks at. */
export const PREFIX_CHARS = 160

/** How Rein writes an event line: the envelope keys first, in this order (see `Session.append`). */
const EVENT_PREFIX = /^\{"seq":\d+,"time":(\d+(?:\.\d+)?),"type":"([^"\\]+)"/

/** Words of the first prompt a title keeps. */
const TITLE_WORDS = 8
const TITLE_CHARS = 72

/**
 * Feeds one line. `prefix` is at least the first `PREFIX_CHARS` characters of the line (or all of it); `full` returns
 * the whole line and is called only for the lines a summary needs. Lines that are not valid JSON are skipped: a
 * listing shows what it can, and `rein sessions verify` reports damage.
 */
export function feedSummary(state: SummaryState, prefix: string, full: () => string): void {
  state.lines++
  if (state.lines === 1) {
    const header = parseObject(full())
    if (!header) return
    if (typeof header.id === 'string') state.id = header.id
    if (typeof header.cwd === 'string') state.cwd = header.cwd
    if (typeof header.createdAt === 'number') state.createdAt = header.createdAt
    const parent = header.parent as { id?: unknown; seq?: unknown } | undefined
    if (parent && typeof parent.id === 'string' && typeof parent.seq === 'number') {
      state.parent = { id: parent.id, seq: parent.seq }
    }
    const link = header.subagent as { parent?: unknown; agent?: unknown } | undefined
    if (link && typeof link.parent === 'string' && typeof link.agent === 'string') state.subagent = { parent: link.parent, agent: link.agent }
    return
  }
  let time: number | undefined
  let type: string | undefined
  let parsed: Record<string, unknown> | undefined
  const match = EVENT_PREFIX.exec(prefix)
  if (match) {
    time = Number(match[1])
    type = match[2]
  } else {
    parsed = parseObject(full())
    if (!parsed) return
    if (typeof parsed.time === 'number') time = parsed.time
    if (typeof parsed.type === 'string') type = parsed.type
  }
  if (time !== undefined) state.updatedAt = time
  if (type === 'turn/start') state.turns++
  else if (type === 'session/title') {
    const data = (parsed ?? parseObject(full()))?.data as { title?: unknown } | undefined
    if (typeof data?.title === 'string') state.title = data.title
  } else if (type === 'user/message' && state.firstPrompt === undefined) {
    const data = (parsed ?? parseObject(full()))?.data as { content?: unknown } | undefined
    if (Array.isArray(data?.content)) state.firstPrompt = firstWords(data.content)
  }
}

/** The summary a finished state describes, or undefined when the header was unreadable. */
export function summaryOf(state: SummaryState, bytes: number): SessionSummary | undefined {
  if (state.id === undefined || state.cwd === undefined || state.createdAt === undefined) return undefined
  return {
    id: state.id,
    cwd: state.cwd,
    title: state.title ?? state.firstPrompt ?? '',
    createdAt: state.createdAt,
    updatedAt: state.updatedAt ?? state.createdAt,
    turns: state.turns,
    bytes,
    ...(state.parent ? { parent: state.parent } : {}),
    ...(state.subagent ? { subagent: state.subagent } : {}),
  }
}

function firstWords(content: unknown[]): string {
  const text = content
    .map((block) => {
      const b = block as { type?: unknown; text?: unknown }
      return b.type === 'text' && typeof b.text === 'string' ? b.text : ''
    })
    .join(' ')
  const words = text.split(/\s+/).filter(Boolean)
  let title = words.slice(0, TITLE_WORDS).join(' ')
  if (title.length > TITLE_CHARS) title = `${title.slice(0, TITLE_CHARS - 1)}…`
  else if (words.length > TITLE_WORDS) title += '…'
  return title
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text)
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined
  } catch {
    // A damaged line: the listing skips it (see feedSummary).
    return undefined
  }
}
