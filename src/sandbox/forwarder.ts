/**
 * The program that runs first inside a sandbox with a proxy, under the same `node` as Rein (`process.execPath`):
 * it listens on 127.0.0.1:`PROXY_PORT` in the sandbox's own network namespace, pipes each connection to Rein's proxy
 * socket, then runs `bash -c command` and exits with its status. Kept as CommonJS source for `node -e` so the
 * sandbox needs no file of Rein's. argv: socket path, port, command. The user's `NODE_OPTIONS` (a `--require`d
 * hook, `--inspect`) must not act on the forwarder, so it arrives as `HELD_NODE_OPTIONS` and is given back to bash.
 */
export const FORWARDER_SOURCE = `
const net = require('node:net'), { spawn } = require('node:child_process'), { constants } = require('node:os')
const [socketPath, port, command] = process.argv.slice(1)
const server = net.createServer((inside) => {
  const outside = net.connect(socketPath)
  inside.pipe(outside); outside.pipe(inside)
  inside.on('error', () => outside.destroy()); outside.on('error', () => inside.destroy())
})
server.on('error', (error) => { process.stderr.write('rein sandbox: the proxy forwarder could not listen: ' + error.message + '\\n'); process.exit(125) })
server.listen(Number(port), '127.0.0.1', () => {
  const env = { ...process.env }
  if (env.REIN_HELD_NODE_OPTIONS !== undefined) env.NODE_OPTIONS = env.REIN_HELD_NODE_OPTIONS
  delete env.REIN_HELD_NODE_OPTIONS
  const child = spawn('bash', ['-c', command], { stdio: 'inherit', env })
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)))
  child.on('error', (error) => { process.stderr.write('rein sandbox: could not start bash: ' + error.message + '\\n'); process.exit(127) })
})
`

/** The port inside the sandbox where the forwarder listens; the sandbox has its own loopback, so it clashes with nothing of the host. */
export const PROXY_PORT = 3128

/** Where the user's NODE_OPTIONS wait while the forwarder starts (see FORWARDER_SOURCE). */
export const HELD_NODE_OPTIONS = 'REIN_HELD_NODE_OPTIONS'

/**
 * The forwarder of a session's shared network namespace (shared-network.ts): the same pipe from 127.0.0.1:`PROXY_PORT`
 * to Rein's proxy socket, without a command; it prints `listening` once it accepts connections and exits when its
 * stdin closes (Rein went away). argv: socket path, port.
 */
export const LISTENER_SOURCE = `
const net = require('node:net')
const [socketPath, port] = process.argv.slice(1)
const server = net.createServer((inside) => {
  const outside = net.connect(socketPath)
  inside.pipe(outside); outside.pipe(inside)
  inside.on('error', () => outside.destroy()); outside.on('error', () => inside.destroy())
})
server.on('error', (error) => { process.stderr.write('rein sandbox: the proxy forwarder could not listen: ' + error.message + '\\n'); process.exit(125) })
server.listen(Number(port), '127.0.0.1', () => process.stdout.write('listening\\n'))
process.stdin.on('end', () => process.exit(0)); process.stdin.resume()
`
