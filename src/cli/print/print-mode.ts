import { openAgentWithContext, type OpenAgentOptions } from '../../agent/open.js'
import type { LiveEvent } from '../../agent/types.js'
import { onExitSignals } from '../exit-signals.js'
import { exitCodeFor, summarize, type PermissionDenial } from './result.js'
import { planReviewText } from '../../plan/review-text.js'
import type { SessionEvent } from '../../session/events.js'

export type OutputFormat = 'text' | 'json' | 'stream-json'

export interface PrintOptions extends OpenAgentOptions {
  prompt: string
  outputFormat: OutputFormat
  stdout?: NodeJS.WritableStream
  stderr?: NodeJS.WritableStream
}

/**
 * Runs one prompt to completion (`rein -p`). SIGINT, SIGTERM and SIGHUP end the turn `interrupted` and close
 * everything cleanly (exit 130, 143, 129); a second signal exits at once. Returns the process exit code.
 */
export async function runPrint(options: PrintOptions): Promise<number> {
  const out = options.stdout ?? process.stdout
  const err = options.stderr ?? process.stderr
  const started = performance.now()
  const denials: PermissionDenial[] = []
  const rules = new Map<string, string | undefined>()
  const opened = await openAgentWithContext({
    ...options,
    onProblem: (message) => err.write(`rein: ${message}\n`),
    onPermissionRefused: (call, rule) => {
      denials.push({ tool_name: call.name, tool_use_id: call.callId, tool_input: call.input })
      if (!rules.has(call.name) || (rule && !rules.get(call.name))) rules.set(call.name, rule)
    },
  })
  const { agent } = opened
  const fromSeq = agent.session.length
  const write = (value: unknown): void => {
    out.write(`${JSON.stringify(value)}\n`)
  }
  const unsubscribe = agent.subscribe((event: LiveEvent) => {
    if (options.outputFormat === 'stream-json') write(event)
    else if (event.type === 'notice' && event.level !== 'info') err.write(`rein: ${event.message}\n`)
    else if (event.type === 'event' && event.event.type === 'plan/reviewed') err.write(planReviewText((event.event as SessionEvent<'plan/reviewed'>).data))
  })

  const signals = onExitSignals(() => agent.interrupt())
  try {
    agent.followUp(options.prompt)
    const outcome = await agent.whenIdle()
    unsubscribe()
    const result = summarize(agent.session.events, fromSeq, agent.session.id, outcome, opened.model, performance.now() - started, denials)
    if (options.outputFormat === 'text') {
      if (result.result) out.write(result.result.endsWith('\n') ? result.result : `${result.result}\n`)
      if (outcome?.message) err.write(`rein: ${outcome.message}\n`)
    } else {
      write(result)
    }
    for (const [tool, rule] of rules) err.write(`${refusedLine(tool, denials.filter((d) => d.tool_name === tool).length, rule)}\n`)
    return signals.code ?? exitCodeFor(outcome)
  } finally {
    signals.dispose()
    await agent.close(signals.received ? 'signal' : 'exit')
  }
}

/** One stderr line per refused tool: how many calls were refused and the rule that would allow them. */
function refusedLine(tool: string, count: number, rule: string | undefined): string {
  const calls = `${count} ${tool} call${count === 1 ? ' was' : 's were'} refused because nothing could ask for permission`
  return rule ? `rein: ${calls}; allow with --allow '${rule}'.` : `rein: ${calls}; allow with --permission-mode bypass.`
}
