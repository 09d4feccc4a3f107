import type { LiveEvent } from '../../agent/types.js'
import { textOf } from '../../llm/messages.js'
import type { SessionEvent } from '../../session/events.js'
import { describeCall, describeResult, plainLine, plainText, toolLookup, type ToolLookup } from '../../frontend/render/index.js'
import { SANDBOXED_LABEL } from '../../sandbox/result-mark.js'

const dim = (s: string): string => `\x1b[2m${s}\x1b[22m`
const bold = (s: string): string => `\x1b[1m${s}\x1b[22m`

/**
 * Prints live events as a plain, readable log (the demo's output). Streaming text is printed as it arrives. Tool calls
 * are shown by their tool's own display: `tools` finds it (`agentToolLookup(agent)`), `cwd` shortens paths.
 */
export function livePrinter(
  write: (text: string) => void,
  options: { color?: boolean; tools?: ToolLookup; cwd?: string } = {},
): (event: LiveEvent) => void {
  const color = options.color ?? false
  const tools = options.tools ?? toolLookup()
  const cwd = options.cwd ?? process.cwd()
  const names = new Map<string, string>()
  const d = color ? dim : (s: string) => s
  const b = color ? bold : (s: string) => s
  let streaming: 'text' | 'reasoning' | null = null
  const endStream = (): void => {
    if (streaming) write('\n')
    streaming = null
  }
  return (event) => {
    switch (event.type) {
      case 'reasoning-delta':
        if (streaming !== 'reasoning') {
          endStream()
          write(d('  thinking: '))
          streaming = 'reasoning'
        }
        write(d(event.text))
        return
      case 'text-delta':
        if (streaming !== 'text') {
          endStream()
          write(`${b('rein')}  `)
          streaming = 'text'
        }
        write(event.text)
        return
      case 'notice':
        endStream()
        write(`${event.level}: ${event.message}\n`)
        return
      case 'event':
        printEvent(event.event)
        return
      default:
        return
    }
  }

  function printEvent(e: SessionEvent): void {
    switch (e.type) {
      case 'user/message':
        endStream()
        write(`${b('you')}   ${textOf(e.data.content)}\n`)
        return
      case 'steering/message':
        endStream()
        write(`${b('steer')} ${textOf(e.data.content)}\n`)
        return
      case 'context/message': {
        endStream()
        const data = e.data
        write(d(`  [context from ${data.source.kind}: ${textOf(data.content).length} characters]\n`))
        return
      }
      case 'tool/call': {
        endStream()
        const data = e.data
        names.set(data.callId, data.name)
        const call = describeCall(tools(data.name), data.name, data.arguments, cwd)
        write(`  ${b('→')} ${plainLine(data.name, 80)} ${d(plainLine(call.subject, 120))}\n`)
        return
      }
      case 'tool/result': {
        const data = e.data
        const name = names.get(data.callId)
        names.delete(data.callId)
        const result = describeResult(name === undefined ? undefined : tools(name), data)
        const shown = result.diff ?? plainText(textOf(data.content))
        const lines = shown.split('\n').filter((l) => l.length)
        const tail = lines.slice(0, 12).map((l) => `      ${plainLine(l, 400)}`).join('\n')
        const sandboxed = result.sandbox ? d(` · ${SANDBOXED_LABEL}`) : ''
        write(`  ${data.isError ? '✗' : '✓'} ${d(result.summary)}${sandboxed}\n${d(tail)}\n`)
        return
      }
      case 'turn/end': {
        endStream()
        const data = e.data
        write(d(`  [turn ${data.turn} ${data.reason}${data.error ? `: ${data.error.message}` : ''}]\n`))
        return
      }
      default:
        return
    }
  }
}
