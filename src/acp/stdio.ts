import { Readable, Writable } from 'node:stream'
import { ndJsonStream } from '@agentclientprotocol/sdk'
import { startAcpServer, type AcpServerOptions } from './server.js'

/**
 * Serves ACP on this process's stdin and stdout until the client disconnects or a signal arrives, then closes
 * every session (cancelling running turns and flushing their logs). Resolves with the exit code.
 *
 * stdout carries protocol frames only: while serving, `console.log`/`info`/`debug` are sent to stderr so no stray
 * line from any module can corrupt the stream.
 */
export async function serveAcpOnStdio(options: Omit<AcpServerOptions, 'log'>): Promise<number> {
  const log = (line: string): void => {
    process.stderr.write(`rein acp: ${line}\n`)
  }
  console.log = console.error
  console.info = console.error
  console.debug = console.error

  const output = Writable.toWeb(process.stdout) as WritableStream<Uint8Array>
  const input = Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>
  const server = startAcpServer(ndJsonStream(output, input), { ...options, log })

  const onSignal = (signal: NodeJS.Signals): void => {
    log(`${signal} received; closing sessions`)
    void server.close()
  }
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)
  await server.closed
  process.off('SIGINT', onSignal)
  process.off('SIGTERM', onSignal)
  return 0
}
