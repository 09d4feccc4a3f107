import { Writable } from 'node:stream'
import { ndJsonStream } from '@agentclientprotocol/sdk'
import { onExitSignals } from '../frontend/exit-signals.js'
import { LineLimiter, maxLineBytes, tooLongMessage, type LinePiece } from '../frontend/line-limit.js'
import { startAcpServer, type AcpServerOptions } from './server.js'

/**
 * Serves ACP on this process's stdin and stdout until the client disconnects or a signal arrives, then closes
 * every session (cancelling running turns and flushing their logs). Resolves with the exit code: 0 when the client
 * went away, 130/143/129 after SIGINT/SIGTERM/SIGHUP.
 *
 * stdout carries protocol frames only: while serving, `console.log`/`info`/`debug` are sent to stderr so no stray
 * line from any module can corrupt the stream.
 */
export async function serveAcpOnStdio(options: Omit<AcpServerOptions, 'log'> & { maxLineBytes?: number }): Promise<number> {
  const log = (line: string): void => {
    process.stderr.write(`rein acp: ${line}\n`)
  }
  console.log = console.error
  console.info = console.error
  console.debug = console.error

  const output = Writable.toWeb(process.stdout) as WritableStream<Uint8Array>
  const input = boundedInput(process.stdin, options.maxLineBytes ?? maxLineBytes(), (message) => {
    // Whole frames only: the SDK writes whole lines too, so this error frame cannot split one of its messages.
    process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message } })}\n`)
    log(message)
  })
  const server = startAcpServer(ndJsonStream(output, input), { ...options, log })

  // Every signal ends like Ctrl-C: running turns are cancelled, tool process groups and MCP servers closed, logs
  // flushed and leases released before the process exits with 130, 143 or 129. A second signal exits at once.
  const signals = onExitSignals((signal) => {
    log(`${signal} received; closing sessions`)
    void server.close()
  })
  await server.closed
  signals.dispose()
  return signals.code ?? 0
}

/**
 * stdin as a stream of whole lines of at most `limit` bytes each. A longer line is never held whole: it is dropped and
 * `refuse` is told once (an Invalid Request error frame; its id cannot be known without reading the line).
 */
function boundedInput(stdin: NodeJS.ReadableStream, limit: number, refuse: (message: string) => void): ReadableStream<Uint8Array> {
  const limiter = new LineLimiter(limit)
  const forward = (controller: ReadableStreamDefaultController<Uint8Array>, pieces: LinePiece[]): void => {
    for (const piece of pieces) {
      if ('tooLong' in piece) refuse(tooLongMessage(piece.tooLong, limit))
      else controller.enqueue(Buffer.concat([piece.line, Buffer.from('\n')]))
    }
  }
  return new ReadableStream<Uint8Array>({
    start(controller) {
      stdin.on('data', (chunk: Buffer | string) => forward(controller, limiter.push(Buffer.from(chunk))))
      stdin.on('end', () => {
        forward(controller, limiter.end())
        controller.close()
      })
      stdin.on('error', (error) => controller.error(error))
    },
  })
}
