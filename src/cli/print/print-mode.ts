import { openAgentWithContext, type OpenAgentOptions } from '../../agent/open.js'
import type { LiveEvent } from '../../agent/types.js'
import { onExitSignals } from '../exit-signals.js'
import { exitCodeFor, summarize } from './result.js'

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
  const opened = await openAgentWithContext({
    ...options,
    onProblem: (message) => err.write(`rein: ${message}\n`),
  })
  const { agent } = opened
  const fromSeq = agent.session.length
  const write = (value: unknown): void => {
    out.write(`${JSON.stringify(value)}\n`)
  }
  const unsubscribe = agent.subscribe((event: LiveEvent) => {
    if (options.outputFormat === 'stream-json') write(event)
    else if (event.type === 'notice' && event.level !== 'info') err.write(`rein: ${event.message}\n`)
  })

  const signals = onExitSignals(() => agent.interrupt())
  try {
    agent.followUp(options.prompt)
    const outcome = await agent.whenIdle()
    unsubscribe()
    const result = summarize(agent.session.events, fromSeq, agent.session.id, outcome, opened.model, performance.now() - started)
    if (options.outputFormat === 'text') {
      if (result.result) out.write(result.result.endsWith('\n') ? result.result : `${result.result}\n`)
      if (outcome?.message) err.write(`rein: ${outcome.message}\n`)
    } else {
      write(result)
    }
    return signals.code ?? exitCodeFor(outcome)
  } finally {
    signals.dispose()
    await agent.close(signals.received ? 'signal' : 'exit')
  }
}
