import { Readable, Writable } from 'node:stream'
import { ndJsonStream } from '@agentclientprotocol/sdk'
import { onExitSignals } from '../cli/exit-signals.js'
import { startAcpServer, type AcpServerOptions } from './server.js'

/**
 * Serves ACP on this process's stdin and stdout until the client disconnects or a signal arrives, then closes
 * every session (cancelling running turns and flushing their logs). Resolves with the exit code: 0 when the client
 * went away, 130/143/129 after SIGINT/SIGTERM/SIGHUP.
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
