import { writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { blocksText, typedText } from '../typed-text.js'
import type { SessionEvent } from '../../session/events.js'
import { counted } from '../../text/count.js'
import type { BuiltinCommand, CommandContext } from './types.js'


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

/** The surface's pick and switch, or a sentence saying this surface cannot do it (never reached through the catalog's `surfaces`). */
function interactive(ctx: CommandContext) {
  const { pick, switchSession } = ctx.host
  if (!pick || !switchSession) {
    ctx.reply('This command needs the terminal UI.', { level: 'warning' })
    return undefined
  }
  return { pick, switchSession }
}

export const quitCommand: BuiltinCommand = {
  name: 'quit',
  aliases: ['exit'],
  help: 'Leave Rein',
  surfaces: ['tui'],
  run: (ctx) => interactive(ctx)?.switchSession({ kind: 'quit' }),
}

export const newCommand: BuiltinCommand = {
  name: 'new',
  help: 'Start a new session in this directory',
  surfaces: ['tui'],
  run: (ctx) => interactive(ctx)?.switchSession({ kind: 'switch' }),
}

export const resumeCommand: BuiltinCommand = {
  name: 'resume',
  help: "Pick one of this directory's sessions to continue",
  surfaces: ['tui'],
  async run(ctx) {
    const ui = interactive(ctx)
    if (!ui || !ctx.host.listSessions) return
    const sessions = (await ctx.host.listSessions(ctx.agent.cwd)).filter((s) => s.id !== ctx.agent.session.id)
    if (!sessions.length) return ctx.reply('There are no other sessions in this directory to resume.')
    const choices = sessions
      .sort((a, b) => b.updatedAt - a.updatedAt)
      .map((s) => ({
        value: s.id,
        label: s.title ?? '(untitled)',
        detail: `${s.forkOf ? `fork of ${s.forkOf} · ` : ''}${ago(s.updatedAt)} · ${counted(s.turns, 'turn')} · ${size(s.bytes)} · ${s.id.slice(0, 8)}`,
      }))
    ui.pick('Resume a session', choices, (id) => ui.switchSession({ kind: 'switch', resume: id }))
  },
}

export const forkCommand: BuiltinCommand = {
  name: 'fork',
  help: 'Branch a new session from an earlier prompt',
  surfaces: ['tui'],
  run(ctx) {
    const ui = interactive(ctx)
    if (!ui) return
    const events = ctx.events()
    const prompts = events.filter((e): e is SessionEvent<'user/message'> => e.type === 'user/message')
    if (!prompts.length) return ctx.reply('There is no earlier prompt to fork from yet.')
    const choices = prompts
      .slice()
      .reverse()
      .map((e) => ({ value: String(e.seq), label: blocksText(e.data.content).replace(/\s+/g, ' ').slice(0, 100), detail: ago(e.time) }))
    ui.pick('Fork from a prompt (it goes back into the editor)', choices, (value) => {
      const prompt = prompts.find((p) => String(p.seq) === value)
      if (!prompt) return
      const seq = forkSeqBefore(events, prompt.seq)
      const prefill = typedText(prompt.data.content)
      ui.switchSession(seq === undefined ? { kind: 'switch', prefill } : { kind: 'switch', fork: { id: ctx.agent.session.id, seq }, prefill })
    })
  },
}

export const subagentsCommand: BuiltinCommand = {
  name: 'subagents',
  help: 'Open the transcript of a subagent this session started',
  surfaces: ['tui'],
  run(ctx) {
    const ui = interactive(ctx)
    if (!ui) return
    const children = subagentRuns(ctx.events())
    if (!children.length) return ctx.reply('This session has started no subagents.')
    const choices = children.map((c) => ({ value: c.child, label: `${c.agent}: ${c.description}`, detail: `${c.outcome ?? 'running'} · ${c.child.slice(0, 8)}` }))
    ui.pick('Open a subagent', choices, (id) => {
      const read = ctx.host.transcript
      if (!read) return ctx.reply('Subagent transcripts cannot be read here; use `rein sessions show`.', { level: 'warning' })
      read(id).then(
        (text) => ctx.reply(text, { title: `Subagent ${id.slice(0, 8)}` }),
        (error: unknown) => ctx.reply(`Could not read subagent ${id.slice(0, 8)}: ${error instanceof Error ? error.message : String(error)}`, { level: 'error' }),
      )
    })
  },
}

export const exportCommand: BuiltinCommand = {
  name: 'export',
  argument: { hint: '[file]' },
  help: 'Write the conversation as Markdown',
  surfaces: ['tui'],
  run(ctx, arg) {
    const markdown = ctx.host.report?.('markdown')
    if (markdown === undefined) return ctx.reply('This surface cannot export the conversation; use `rein sessions show --markdown`.', { level: 'warning' })
    const file = resolve(ctx.agent.cwd, arg || `rein-${ctx.agent.session.id.slice(0, 8)}.md`)
    writeFileSync(file, markdown)
    ctx.reply(`Wrote the conversation to ${file}.`)
  },
}
