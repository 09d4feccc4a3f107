import { openAgentWithContext, type OpenAgentOptions } from '../../runtime/open.js'
import type { LiveEvent, TurnOutcome } from '../../agent/types.js'
import { onExitSignals } from '../../frontend/exit-signals.js'
import { maxLineBytes } from '../../frontend/line-limit.js'
import { initLine, type InitServer } from './claude/init.js'
import { initListings } from './claude/listings.js'
import { claudeToolName } from '../../tools/claude-names.js'
import { ClaudeStream } from './claude/stream.js'
import { ChildStream } from './claude/child-stream.js'
import { modelInfo, type ModelInfo } from '../../llm/catalog.js'
import { modelOverrides } from '../../runtime/model-choice.js'
import { ApiClock } from './api-clock.js'
import { exitCodeFor, lastAssistantText, summarize, type PermissionDenial } from './result.js'
import { ControlSession } from './control/session.js'
import { planReviewText } from '../../plan/review-text.js'
import { printBuiltin, runPrintBuiltin } from '../../frontend/commands/print-command.js'
import type { InputBlock } from '../../llm/messages.js'
import { mergeSettings, type Settings } from '../../config/settings.js'

/** `events` is Rein's own stream (every committed event and delta); `stream-json` is Claude Code's. */
export type OutputFormat = 'text' | 'json' | 'stream-json' | 'events'
export type InputFormat = 'text' | 'stream-json'

export interface PrintOptions extends OpenAgentOptions {
  /** The prompt given on the command line (and piped text, with `--input-format text`); may be empty with stream-json input. */
  prompt: string
  outputFormat: OutputFormat
  inputFormat?: InputFormat
  /** `--include-partial-messages`: `stream_event` lines in `stream-json`. */
  includePartialMessages?: boolean
  stdin?: AsyncIterable<Buffer | string> & { destroy?: () => void }
  /** `--permission-prompt-tool stdio`: with stream-json input, permission questions go to the SDK (`can_use_tool`). */
  permissionPromptTool?: string
  /** `--permission-mode dontAsk`: with the control protocol, permission questions are refused without asking the SDK. */
  dontAsk?: boolean
  stdout?: NodeJS.WritableStream
  stderr?: NodeJS.WritableStream
}

/**
 * Runs one prompt to completion (`rein -p`), or with `--input-format stream-json` every user message read from
 * standard input, in one session, until the input ends and the last turn is over. SIGINT, SIGTERM and SIGHUP end the
 * turn `interrupted` and close everything cleanly (exit 130, 143, 129); a second signal exits at once. Returns the
 * process exit code.
 */
export async function runPrint(options: PrintOptions): Promise<number> {
  const out = options.stdout ?? process.stdout
  const err = options.stderr ?? process.stderr
  const started = performance.now()
  const denials: PermissionDenial[] = []
  const rules = new Map<string, string | undefined>()
  const write = (value: unknown): void => {
    out.write(`${JSON.stringify(value)}\n`)
  }
  // The Agent SDK's control protocol (src/cli/print/control/) reads stdin from the start: initialize comes first.
  const input = options.inputFormat === 'stream-json' ? (options.stdin ?? process.stdin) : undefined
  const report = (message: string): void => void err.write(`rein: ${message}\n`)
  const control = input
    ? new ControlSession({ input, lineLimit: maxLineBytes(), cwd: options.cwd, write, report, permissionPromptTool: options.permissionPromptTool, dontAsk: options.dontAsk })
    : undefined
  const extras = await control?.extras()
  const opened = await openAgentWithContext({
    // One-shot mode shows no history, so a resume reads the sidecar and the log's tail (issue 24).
    resumeFromSidecar: true,
    ...options,
    mcpServers: [...(options.mcpServers ?? []), ...(extras?.mcpServers ?? [])],
    extensions: [...(options.extensions ?? []), ...(extras?.extensions ?? [])],
    // initialize's system prompt and agents over the flags' (the SDK sends them there, not on the command line).
    ...(extras?.systemPrompt ? { systemPrompt: { ...options.systemPrompt, ...extras.systemPrompt } } : {}),
    ...(extras?.agentTypes.length ? { agentTypes: [...(options.agentTypes ?? []), ...extras.agentTypes] } : {}),
    ...(extras?.settingsOverlay ? { settingsOverlay: mergeSettings(options.settingsOverlay ?? {}, extras.settingsOverlay) as Settings } : {}),
    ...(extras?.flagHooks ? { flagHooks: bothHooks(options.flagHooks, extras.flagHooks) } : {}),
    onProblem: (message) => err.write(`rein: ${message}\n`),
    // A one-shot run neither pays for nor waits on a model-made title: the first prompt names it (docs/configuration.md).
    modelTitles: false,
    onPermissionRefused: (call, rule) => {
      const tool = claudeToolName(call.name)
      denials.push({ tool_name: tool, tool_use_id: call.callId, tool_input: isRecord(call.input) ? call.input : {} })
      if (!rules.has(tool) || (rule && !rules.get(tool))) rules.set(tool, rule)
    },
  })
  const { agent } = opened
  control?.attach(opened)
  const fromSeq = agent.session.length
  // Subagents at any depth, as each starts: its model for the result's `modelUsage`, and its lines in the stream.
  const childModels = new Map<string, ModelInfo>()
  const stopChildren = opened.subagents.onChild((child) => {
    const sessionId = child.agent.session.id
    childModels.set(sessionId, modelInfo(child.agent.config.model, modelOverrides(opened.settings)))
    if (options.outputFormat === 'stream-json') {
      const stream = new ChildStream({
        sessionId,
        callId: child.callId,
        modelId: child.agent.config.model,
        partial: options.includePartialMessages ?? false,
        write,
      })
      child.agent.subscribe((event) => stream.live(event))
    } else if (options.outputFormat === 'events') {
      // Rein's own stream tags a child's lines with the child's session and the parent's `task` call; the session's own lines carry neither.
      child.agent.subscribe((event) => write({ ...event, session_id: sessionId, parent_tool_use_id: child.callId }))
    }
  })
  const claude =
    options.outputFormat === 'stream-json'
      ? new ClaudeStream({
          sessionId: agent.session.id,
          model: opened.model,
          modelId: agent.config.model,
          events: () => agent.session.events,
          fromSeq,
          denials,
          partial: options.includePartialMessages ?? false,
          write,
          started,
          childModels,
        })
      : undefined
  // json and events: the result's model time, and with stream-json input the idle period each result covers.
  const api = new ApiClock()
  const period = { fromSeq, started, denials: 0 }
  const periodResult = (outcome: TurnOutcome | undefined) => {
    const result = summarize(agent.session.events, period.fromSeq, agent.session.id, outcome, opened.model, performance.now() - period.started, denials.slice(period.denials), {
      apiMs: api.take(),
      runFromSeq: fromSeq,
      childModels,
    })
    Object.assign(period, { fromSeq: agent.session.length, started: performance.now(), denials: denials.length })
    return result
  }
  const unsubscribe = agent.subscribe((event: LiveEvent) => {
    if (event.type === 'event') api.observe(event.event)
    if (options.outputFormat === 'events') {
      write(event)
      // Rein's own stream closes each idle period with the result of what ran in it.
      if (event.type === 'idle' && options.inputFormat === 'stream-json') write(periodResult(undefined))
      return
    }
    claude?.live(event)
    if (event.type === 'notice' && event.level !== 'info') err.write(`rein: ${event.message}\n`)
    if (event.type === 'event' && event.event.type === 'plan/reviewed') err.write(planReviewText(event.event.data))
  })

  if (claude) {
    // The MCP manager reports each server's state; the stand-in used when no server is configured has no `status`.
    const mcp = opened.mcp as { status?: () => InitServer[] }
    write(
      initLine({
        sessionId: agent.session.id,
        fromSeq,
        cwd: agent.cwd,
        model: agent.config.model,
        tools: agent.toolList.map((t) => claudeToolName(t.name)),
        servers: mcp.status?.() ?? [],
        permissionMode: agent.permissionMode,
        ...initListings(agent.cwd, options.env ?? process.env, [...opened.subagents.types.keys()], opened.plugins),
      }),
    )
  }

  const signals = onExitSignals(() => {
    agent.interrupt()
    input?.destroy?.()
  })
  try {
    let outcome: TurnOutcome | undefined
    let nothingRun = false
    // A built-in command (`/compact`, `/model x`) runs here instead of reaching the model (src/frontend/commands).
    const builtin = control ? undefined : printBuiltin(options.prompt, agent.cwd)
    const ran = builtin ? await runPrintBuiltin(agent, builtin, { out, err, text: options.outputFormat === 'text', home: options.home }) : undefined
    if (typeof ran === 'number') return ran
    // A command that sent a prompt (`/init`, `/review`) ends as that prompt's turn does.
    if (ran) outcome = await agent.whenIdle()
    else if (control) {
      const ran = await runStreamInput(agent, options.prompt, control.pump.messages(), report, () => signals.received !== undefined)
      outcome = ran.outcome
      nothingRun = !ran.delivered
    } else {
      agent.followUp(options.prompt)
      outcome = await agent.whenIdle()
    }
    unsubscribe()
    stopChildren()
    claude?.finish(outcome)
    if (options.outputFormat === 'text') {
      const text = lastAssistantText(agent.session.events, fromSeq)
      if (text) out.write(text.endsWith('\n') ? text : `${text}\n`)
      if (outcome?.message) err.write(`rein: ${outcome.message}\n`)
    } else if (options.outputFormat === 'json' || (options.outputFormat === 'events' && options.inputFormat !== 'stream-json')) {
      write(periodResult(outcome))
    }
    for (const [tool, rule] of rules) err.write(`${refusedLine(tool, denials.filter((d) => d.tool_name === tool).length, rule)}\n`)
    return signals.code ?? (nothingRun ? 2 : control?.interruptedTurn(outcome?.turn) ? 0 : exitCodeFor(outcome))
  } finally {
    signals.dispose()
    await agent.close(signals.received ? 'signal' : 'exit')
  }
}

/**
 * Delivers each user message read from `input`: while no turn is open it opens one (`followUp`); while a turn runs
 * (between its `turn/start` and `turn/end`) it is steering (`steer`), which the model sees at the turn's next step
 * boundary. A message that arrives after a turn's end, while the agent is still flushing, is a new prompt. A line that cannot be used is
 * reported as one sentence and skipped; the session goes on. Resolves with the last turn's outcome once the input
 * has ended and the agent is idle.
 */
async function runStreamInput(
  agent: Awaited<ReturnType<typeof openAgentWithContext>>['agent'],
  prompt: string,
  input: AsyncIterable<{ content: InputBlock[] }>,
  report: (message: string) => void,
  stopped: () => boolean,
): Promise<{ outcome: TurnOutcome | undefined; delivered: boolean }> {
  let delivered = false
  let turnOpen = false
  const unsubscribe = agent.subscribe((event) => {
    if (event.type === 'event' && event.event.type === 'turn/start') turnOpen = true
    if (event.type === 'event' && event.event.type === 'turn/end') turnOpen = false
  })
  if (prompt.trim()) {
    agent.followUp(prompt)
    delivered = true
  }
  try {
    for await (const line of input) {
      if (stopped()) break
      if (turnOpen) agent.steer(line.content)
      else agent.followUp(line.content)
      delivered = true
    }
  } catch (error) {
    // Input destroyed by a signal ends reading; any other read failure is reported and the run finishes what it has.
    if (!stopped()) report(`Reading standard input failed (${(error as Error).message}); finishing the turns already sent.`)
  }
  unsubscribe()
  if (!delivered && !stopped()) report('Standard input ended without a user message, so nothing was run.')
  return { outcome: await agent.whenIdle(), delivered }
}

/** Hooks of `--settings` and of initialize's settings, both read: merged as settings files merge. */
function bothHooks(flag: PrintOptions['flagHooks'], init: NonNullable<PrintOptions['flagHooks']>): NonNullable<PrintOptions['flagHooks']> {
  if (!flag) return init
  return { hooks: mergeSettings({ hooks: flag.hooks }, { hooks: init.hooks }).hooks, from: `${flag.from} and ${init.from}` }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** One stderr line per refused tool: how many calls were refused and the rule that would allow them. */
function refusedLine(tool: string, count: number, rule: string | undefined): string {
  const calls = `${count} ${tool} call${count === 1 ? ' was' : 's were'} refused because nothing could ask for permission`
  return rule ? `rein: ${calls}; allow with --allow '${rule}'.` : `rein: ${calls}; allow with --permission-mode bypass.`
}
