import { isSurfaceEvent, type SessionEvent, type SessionHeader, type SurfaceEvent } from './events.js'
import { eventProblem, LOG_VERSION } from './load.js'
import { repairTail } from './repair.js'
import { Surface } from './surface.js'

/**
 * One finding about a log. `seq` is the event it concerns; -1 means the header. A `note` is what a crash normally
 * leaves (an open last turn, its unanswered tool calls), which repair closes when the session is next resumed; every
 * other finding (severity absent or `damage`) is damage.
 */
export interface Problem {
  seq: number
  message: string
  severity?: 'damage' | 'note'
}

/** True for findings that are damage, not notes. */
export function isDamage(problem: Problem): boolean {
  return problem.severity !== 'note'
}

/** An extra check `verifySession` runs after the built-in ones (later: re-deriving every request from the log). */
export type VerifyCheck = (header: SessionHeader, events: readonly SessionEvent[]) => Problem[] | Promise<Problem[]>

/** Runs `verifyEvents` and then every extra check, in order; the problems of all of them, sorted by seq. */
export async function verifySession(
  session: { header: SessionHeader; events: readonly SessionEvent[] },
  extraChecks: readonly VerifyCheck[] = [],
): Promise<Problem[]> {
  const problems = verifyEvents(session.header, session.events)
  for (const check of extraChecks) problems.push(...(await check(session.header, session.events)))
  return problems.sort((a, b) => a.seq - b.seq)
}

/**
 * Checks a log's structure and surface rules: the header; each event's envelope (seq, time, type, surface op, as
 * the loader does); turns and steps properly nested with matching numbers; one result per tool call, each result
 * answering a call; every tool call the model asked for answered before its turn ends; and on the final surface,
 * every tool result following the assistant message that asked for it. Keeps going after a problem.
 */
export function verifyEvents(header: SessionHeader, events: readonly SessionEvent[]): Problem[] {
  const problems: Problem[] = []
  const report = (seq: number, message: string): void => {
    problems.push({ seq, message })
  }
  if (header.type !== 'session') report(-1, 'the header is not a session header')
  if (header.version !== LOG_VERSION) report(-1, `the header has version ${header.version}, not ${LOG_VERSION}`)
  if (typeof header.cwd !== 'string' || !header.cwd.startsWith('/')) report(-1, 'the header cwd is not an absolute path')

  const surface = new Surface()
  let turn: { number: number; seq: number } | undefined
  let lastTurn = -Infinity
  let step: { number: number; seq: number } | undefined
  /** Calls asked for (by an assistant message or a tool/call) and not yet answered, by call id. */
  const unanswered = new Map<string, { seq: number; name: string }>()
  const answered = new Set<string>()
  const logged = new Set<string>()

  events.forEach((event, index) => {
    const problem = eventProblem(event, index, surface)
    if (problem) {
      report(index, `event ${problem}`)
      return
    }
    const seq = event.seq
    if (isSurfaceEvent(event)) surface.apply(event)
    const data = event.data as unknown as Record<string, unknown>
    if (typeof data.turn === 'number' && event.type !== 'turn/start' && turn && data.turn !== turn.number) {
      report(seq, `${event.type} names turn ${data.turn}, but turn ${turn.number} is open`)
    }
    switch (event.type) {
      case 'turn/start':
        if (turn) report(seq, `turn ${String(data.turn)} starts while turn ${turn.number} (seq ${turn.seq}) is open`)
        if (typeof data.turn !== 'number' || data.turn <= lastTurn) report(seq, `turn number ${String(data.turn)} does not increase`)
        else lastTurn = data.turn
        turn = { number: Number(data.turn), seq }
        break
      case 'turn/end':
        if (!turn) report(seq, 'turn/end without an open turn')
        if (step) report(seq, `turn ends while step ${step.number} (seq ${step.seq}) is open`)
        for (const [callId, call] of unanswered) report(call.seq, `tool call ${callId} (${call.name}) has no tool/result before its turn ends`)
        unanswered.clear()
        turn = undefined
        step = undefined
        break
      case 'step/start':
        if (!turn) report(seq, 'step/start outside a turn')
        if (step) report(seq, `step ${String(data.step)} starts while step ${step.number} (seq ${step.seq}) is open`)
        step = { number: Number(data.step), seq }
        break
      case 'step/end':
        if (!step) report(seq, 'step/end without an open step')
        else if (data.step !== step.number) report(seq, `step/end names step ${String(data.step)}, but step ${step.number} is open`)
        step = undefined
        break
      case 'user/message':
      case 'context/message':
      case 'steering/message':
        if (!isInputContent(data.content)) report(seq, `${event.type} content is not a list of text and image blocks`)
        break
      case 'assistant/message': {
        const message = data.message as { role?: unknown; content?: unknown } | undefined
        if (message?.role !== 'assistant' || !Array.isArray(message.content)) {
          report(seq, 'assistant/message does not hold an assistant message')
          break
        }
        for (const block of message.content as { type?: unknown; id?: unknown; name?: unknown }[]) {
          if (block.type !== 'tool-call') continue
          const id = String(block.id)
          if (answered.has(id) || unanswered.has(id)) report(seq, `tool call id ${id} is used twice`)
          else unanswered.set(id, { seq, name: String(block.name) })
        }
        break
      }
      case 'tool/call': {
        const callId = String(data.callId)
        if (logged.has(callId)) report(seq, `tool/call ${callId} is logged twice`)
        logged.add(callId)
        if (!unanswered.has(callId)) report(seq, `tool/call ${callId} answers no tool call of an assistant message`)
        break
      }
      case 'tool/result': {
        const callId = String(data.callId)
        if (answered.has(callId)) report(seq, `tool call ${callId} has a second tool/result`)
        else if (!unanswered.has(callId)) report(seq, `tool/result ${callId} answers no tool call`)
        unanswered.delete(callId)
        answered.add(callId)
        if (!isInputContent(data.content)) report(seq, 'tool/result content is not a list of text and image blocks')
        break
      }
    }
  })
  // What repair would close at the end of the log is what a crash (or a session still running) leaves: notes.
  const closedByRepair = new Map<string, string>()
  for (const pending of repairTail(events)) {
    if (pending.type !== 'tool/result') continue
    const started = pending.data.error?.code === 'outcome-unknown'
    closedByRepair.set(pending.data.callId, started ? 'records its outcome as unknown' : 'records that it never ran')
  }
  if (turn) {
    problems.push({
      seq: turn.seq,
      message: `turn ${turn.number} ends mid-turn (the session crashed, was killed, or is still running); \`rein --resume\` closes it`,
      severity: 'note',
    })
  }
  for (const problem of surfacePairingProblems(surface.entries())) {
    const repair = problem.callId === undefined ? undefined : closedByRepair.get(problem.callId)
    if (repair) {
      problems.push({
        seq: problem.seq,
        message: `tool call ${problem.callId} has no result yet; \`rein --resume\` ${repair}`,
        severity: 'note',
      })
    } else {
      problems.push({ seq: problem.seq, message: problem.message })
    }
  }
  return problems
}

/** On the surface the model reads, a tool result must come after the assistant message that called it, and each call must be answered. */
function surfacePairingProblems(entries: readonly SurfaceEvent[]): (Problem & { callId?: string })[] {
  const problems: (Problem & { callId?: string })[] = []
  const called = new Map<string, number>()
  for (const entry of entries) {
    if (entry.type === 'assistant/message') {
      for (const block of entry.data.message.content) if (block.type === 'tool-call') called.set(block.id, entry.seq)
    } else if (entry.type === 'tool/result') {
      if (!called.delete(entry.data.callId)) {
        problems.push({ seq: entry.seq, message: `on the surface, tool/result ${entry.data.callId} follows no assistant tool call` })
      }
    }
  }
  for (const [callId, seq] of called) {
    problems.push({ seq, message: `on the surface, tool call ${callId} has no tool/result after it`, callId })
  }
  return problems
}

function isInputContent(content: unknown): boolean {
  return (
    Array.isArray(content) &&
    content.every((block: { type?: unknown; text?: unknown; data?: unknown }) =>
      block?.type === 'text' ? typeof block.text === 'string' : block?.type === 'image' && typeof block.data === 'string',
    )
  )
}
