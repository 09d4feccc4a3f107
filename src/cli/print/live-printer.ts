import type { LiveEvent } from '../../agent/types.js'
import { textOf } from '../../llm/messages.js'
import type { SessionEvent } from '../../session/events.js'
import { counted } from '../../text/count.js'
import { sandboxMark, SANDBOXED_LABEL } from '../../sandbox/result-mark.js'

const dim = (s: string): string => `\x1b[2m${s}\x1b[22m`
const bold = (s: string): string => `\x1b[1m${s}\x1b[22m`

/** Prints live events as a plain, readable log (the demo's output). Streaming text is printed as it arrives. */
export function livePrinter(write: (text: string) => void, options: { color?: boolean } = {}): (event: LiveEvent) => void {
  const color = options.color ?? false
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
        write(`  ${b('→')} ${data.name} ${d(data.arguments.length > 120 ? `${data.arguments.slice(0, 117)}...` : data.arguments)}\n`)
        return
      }
      case 'tool/result': {
        const data = e.data
        const text = textOf(data.content)
        const diff = (data.meta as { diff?: unknown } | undefined)?.diff
        const shown = typeof diff === 'string' ? diff : text
        const lines = shown.split('\n').filter((l) => l.length)
        const tail = lines.slice(0, 12).map((l) => `      ${l}`).join('\n')
        const sandboxed = sandboxMark(data.meta, text) ? d(` · ${SANDBOXED_LABEL}`) : ''
        write(`  ${data.isError ? '✗' : '✓'} ${d(counted(lines.length, 'line'))}${sandboxed}\n${d(tail)}\n`)
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
