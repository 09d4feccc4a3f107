import { writeFileSync } from 'node:fs'
import { counted, grouped } from '../../text/count.js'
import { resolve } from 'node:path'
import { PERMISSION_MODES, type AgentApi, type PermissionMode } from '../../agent/types.js'
import type { Effort } from '../../llm/adapter.js'
import type { SessionEvent } from '../../session/events.js'
import type { PickerChoice } from './Picker.js'
import type { TuiExit, TuiServices } from './services.js'
import { contextReport, costReport, exportMarkdown, hooksReport } from './session-reports.js'
import { KEY_HELP, SLASH_COMMANDS, suggestCommand } from './slash-commands.js'
import { blocksText, typedText } from './transcript.js'
import { customHelp } from '../../slash/help.js'
import { skillsReport } from '../../skills/report.js'
import type { UsageLedger } from './usage-ledger.js'
import { runRewindSlash } from './slash-rewind.js'

const EFFORTS: readonly Effort[] = ['off', 'low', 'high', 'max']

/** What a slash command may do to the UI around it. */
export interface SlashContext {
  agent: AgentApi
  ledger: UsageLedger
  services: TuiServices
  events(): readonly SessionEvent[]
  sessionId(): string
  title(): string | undefined
  say(text: string, level?: 'info' | 'warning' | 'error'): void
  show(title: string, text: string): void
  pick(title: string, choices: PickerChoice[], onPick: (value: string) => void): void
  exit(action: TuiExit): void
  /** The agent's settings changed (model, effort, mode): re-read them for the footer. */
  refresh(): void
}

function ago(ms: number): string {
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000))
  if (s < 60) return `${s}s ago`
  if (s < 3600) return `${Math.round(s / 60)}m ago`
  if (s < 86400) return `${Math.round(s / 3600)}h ago`
  return `${Math.round(s / 86400)}d ago`
}

function size(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${Math.round(bytes / 1024)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`
}

/**
 * The seq to fork at so the new session ends just before the turn that held `promptSeq`: forks may not cut inside a
 * turn, and a fork must hold no queued input still waiting at its end (the new agent would deliver it at once: the
 * prompt being forked from would be sent again). Undefined when nothing can be kept (the fork then starts empty).
 */
export function forkSeqBefore(events: readonly SessionEvent[], promptSeq: number): number | undefined {
  // The last seq before `seq` that is not inside a turn.
  const turnBoundaryBefore = (seq: number): number => {
    for (let i = events.length - 1; i >= 0; i--) {
      const e = events[i]
      if (e.seq >= seq) continue
      if (e.type === 'turn/end') return seq - 1
      if (e.type === 'turn/start') return e.seq - 1
    }
    return seq - 1
  }
  let cut = turnBoundaryBefore(promptSeq)
  for (;;) {
    const waiting = new Map<string, number>()
    for (const e of events) {
      if (e.seq > cut) break
      if (e.type === 'inbox/queued') waiting.set(e.data.id, e.seq)
      else if (e.type === 'inbox/dequeued') waiting.delete(e.data.id)
    }
    if (!waiting.size) return cut >= 0 ? cut : undefined
    cut = turnBoundaryBefore(Math.min(...waiting.values()))
  }
}

/** The subagents a session started, newest first, with their outcome once they ended. */
function subagentRuns(events: readonly SessionEvent[]): { child: string; agent: string; description: string; outcome?: string }[] {
  const runs = new Map<string, { child: string; agent: string; description: string; outcome?: string }>()
  for (const event of events) {
    if (event.type === 'subagent/start') runs.set(event.data.child, { child: event.data.child, agent: event.data.agent, description: event.data.description })
    else if (event.type === 'subagent/end') {
      const run = runs.get(event.data.child)
      if (run) run.outcome = event.data.outcome
    }
  }
  return [...runs.values()].reverse()
}

/** Runs `/name arg`. Unknown names get a suggestion. */
export async function runSlash(ctx: SlashContext, name: string, arg: string): Promise<void> {
  const { agent } = ctx
  switch (name) {
    case 'help': {
      const commands = SLASH_COMMANDS.map((c) => `/${c.name}${c.args ? ` ${c.args}` : ''}`.padEnd(32) + c.summary)
      const keys = KEY_HELP.map(([k, what]) => k.padEnd(32) + what)
      return ctx.show('Commands and keys', [...commands, ...customHelp(agent.cwd), '', ...keys].join('\n'))
    }
    case 'skills':
      return ctx.show('Skills', skillsReport(agent.cwd))
    case 'sandbox': {
      const report = ctx.services.sandboxReport?.(agent.cwd)
      return report ? ctx.show('Sandbox', report) : ctx.say('The sandbox state cannot be read here; run `rein sandbox`.', 'warning')
    }
    case 'quit':
    case 'exit':
      return ctx.exit({ kind: 'quit' })
    case 'new':
      return ctx.exit({ kind: 'switch' })
    case 'resume': {
      const sessions = (await ctx.services.listSessions(agent.cwd)).filter((s) => s.id !== ctx.sessionId())
      if (!sessions.length) return ctx.say('There are no other sessions in this directory to resume.')
      const choices = sessions
        .sort((a, b) => b.updatedAt - a.updatedAt)
        .map((s) => ({
          value: s.id,
          label: s.title ?? '(untitled)',
          detail: `${ago(s.updatedAt)} · ${counted(s.turns, 'turn')} · ${size(s.bytes)} · ${s.id.slice(0, 8)}`,
        }))
      return ctx.pick('Resume a session', choices, (id) => ctx.exit({ kind: 'switch', resume: id }))
    }
    case 'fork': {
      const events = ctx.events()
      const prompts = events.filter((e): e is SessionEvent<'user/message'> => e.type === 'user/message')
      if (!prompts.length) return ctx.say('There is no earlier prompt to fork from yet.')
      const choices = prompts
        .slice()
        .reverse()
        .map((e) => ({ value: String(e.seq), label: blocksText(e.data.content).replace(/\s+/g, ' ').slice(0, 100), detail: `seq ${e.seq}` }))
      return ctx.pick('Fork from a prompt (it goes back into the editor)', choices, (value) => {
        const prompt = prompts.find((p) => String(p.seq) === value)
        if (!prompt) return
        const seq = forkSeqBefore(events, prompt.seq)
        const prefill = typedText(prompt.data.content)
        ctx.exit(seq === undefined ? { kind: 'switch', prefill } : { kind: 'switch', fork: { id: ctx.sessionId(), seq }, prefill })
      })
    }
    case 'model': {
      if (arg) {
        agent.setModel({ model: arg })
        ctx.refresh()
        return ctx.say(`Model is now ${arg} (context window ${grouped(ctx.services.facts(arg).contextWindow)} tokens).`)
      }
      return ctx.say(`Model: ${agent.config.model}. Use /model <id> to switch.`)
    }
    case 'effort': {
      if (arg) {
        if (!EFFORTS.includes(arg as Effort)) return ctx.say(`Effort must be one of ${EFFORTS.join(', ')}.`, 'warning')
        agent.setModel({ effort: arg as Effort })
        ctx.refresh()
        return ctx.say(`Effort is now ${arg}.`)
      }
      return ctx.say(`Effort: ${agent.config.effort}. Use /effort ${EFFORTS.join('|')} to change it.`)
    }
    case 'permissions': {
      if (arg) {
        if (!PERMISSION_MODES.includes(arg as PermissionMode)) {
          return ctx.say(`Permission mode must be one of ${PERMISSION_MODES.join(', ')}.`, 'warning')
        }
        agent.setPermissionMode(arg as PermissionMode)
        ctx.refresh()
        return
      }
      const rules = ctx.services.permissionRules(agent.cwd)
      const list = (label: string, items: string[]) => `${label}: ${items.length ? items.join(', ') : '(none)'}`
      return ctx.show(
        'Permissions',
        [`mode: ${agent.permissionMode} (one of ${PERMISSION_MODES.join(', ')})`, list('allow', rules.allow), list('ask', rules.ask), list('deny', rules.deny)].join('\n'),
      )
    }
    case 'compact': {
      if (agent.busy) return ctx.say('A turn is running; /compact works once it has ended (Esc cancels it).')
      const request = compactRequest(arg)
      if ('error' in request) return ctx.say(request.error, 'warning')
      const outcome = await agent.compact(request.focus, { keep: request.keep })
      // Every outcome but `nothing` is logged as `compaction/end`, which the transcript already shows as a notice.
      if (outcome.outcome === 'nothing') return ctx.say(outcome.message)
      return
    }
    case 'rewind':
      return runRewindSlash(ctx, arg)
    case 'cost':
      return ctx.show('Cost by turn', costReport(ctx.ledger.byTurn(), ctx.ledger.subagents()))
    case 'context':
      return ctx.show('What the next request contains', contextReport(ctx.events()))
    case 'hooks':
      return ctx.show('Hooks in this session', hooksReport(ctx.events()))
    case 'subagents': {
      const children = subagentRuns(ctx.events())
      if (!children.length) return ctx.say('This session has started no subagents.')
      const choices = children.map((c) => ({ value: c.child, label: `${c.agent}: ${c.description}`, detail: `${c.outcome ?? 'running'} · ${c.child.slice(0, 8)}` }))
      return ctx.pick('Open a subagent', choices, (id) => {
        const read = ctx.services.transcript
        if (!read) return ctx.say('Subagent transcripts cannot be read here; use `rein sessions show`.', 'warning')
        read(id).then(
          (text) => ctx.show(`Subagent ${id.slice(0, 8)}`, text),
          (error: unknown) => ctx.say(`Could not read subagent ${id.slice(0, 8)}: ${error instanceof Error ? error.message : String(error)}`, 'error'),
        )
      })
    }
    case 'export': {
      const file = resolve(agent.cwd, arg || `rein-${ctx.sessionId().slice(0, 8)}.md`)
      writeFileSync(file, exportMarkdown(ctx.events(), ctx.title()))
      return ctx.say(`Wrote the conversation to ${file}.`)
    }
    default: {
      const suggestion = suggestCommand(name)
      return ctx.say(
        suggestion ? `There is no /${name}; did you mean /${suggestion}?` : `There is no /${name}; /help lists the commands.`,
        'warning',
      )
    }
  }
}

/**
 * `/compact [keep=N] [focus]`: `keep=N` keeps the newest N exchanges verbatim (default 1); the rest of the text is
 * the focus the summary is asked to keep.
 */
export function compactRequest(arg: string): { focus?: string; keep?: number } | { error: string } {
  const match = /^keep=(\S*)\s*/.exec(arg)
  if (!match) return { focus: arg.trim() || undefined }
  const keep = Number(match[1])
  if (!/^\d+$/.test(match[1]) || keep < 1) return { error: `keep=${match[1]} is not a whole number of exchanges; use e.g. /compact keep=3.` }
  return { keep, focus: arg.slice(match[0].length).trim() || undefined }
}
