import { spawn } from 'node:child_process'
import { childEnv } from '../../tools/child-env.js'
import { InvalidArgumentError, Option, type Command } from 'commander'
import { PERMISSION_MODES } from '../../agent/types.js'
import { storeChoice } from '../../runtime/open-store.js'
import { reinHome } from '../../store/home.js'
import { onExitSignals } from '../../frontend/exit-signals.js'
import { fail } from '../fail.js'
import { agentOptions, type RunFlags } from './run.js'

interface WebFlags extends RunFlags {
  port: number
  host: string
  open: boolean
  all?: boolean
}

function parsePort(value: string): number {
  const port = Number(value)
  if (!/^\d{1,5}$/.test(value) || port > 65_535) throw new InvalidArgumentError('expected a port number from 0 to 65535 (0 picks a free one).')
  return port
}

/** `rein web`: a local web app to run, steer and inspect sessions (docs/web.md). */
export function registerWebCommand(program: Command): void {
  program
    .command('web')
    .description('serve a local web page to run, steer and inspect sessions')
    .option('--port <n>', 'port to listen on (0 picks a free one)', parsePort, 3080)
    .option('--host <address>', 'address to listen on; anything but loopback exposes your sessions to the network', '127.0.0.1')
    .option('--no-open', 'do not open a browser')
    .option('--all', 'show the sessions of every workspace, not only those inside the working directory')
    .option('--cwd <dir>', 'the workspace: new sessions start inside it (default: the current directory)')
    .option('--store <url>', 'session store to list, read and write: jsonl (default) or postgres://user@host/db (also REIN_STORE, store.url)')
    .option('--model <id>', 'model id for new sessions')
    .addOption(new Option('--effort <level>', 'thinking effort').choices(['off', 'low', 'high', 'max']))
    .addOption(new Option('--permission-mode <mode>', 'permission mode').choices([...PERMISSION_MODES]))
    .option('--allow <rule...>', 'extra allow rules')
    .option('--trust-project', "trust the workspace's settings, hooks and MCP servers for this run only")
    .addOption(new Option('--trust-project-hooks', 'alias of --trust-project').hideHelp())
    .action(async (flags: WebFlags) => {
      try {
        process.exitCode = await runWeb(flags)
      } catch (error) {
        fail(error)
      }
    })
}

async function runWeb(flags: WebFlags): Promise<number> {
  const { cwd, model, effort, permissionMode, allow, trustProject } = agentOptions({ ...flags, outputFormat: 'text' })
  const { startWebServer, isLoopback } = await import('../../web/server.js')
  const home = reinHome()
  const server = await startWebServer({
    root: cwd,
    all: flags.all === true,
    home,
    store: storeChoice({ home, flag: flags.store }),
    host: flags.host,
    port: flags.port,
    agent: { model, effort, permissionMode, allow, trustProject },
  })
  if (!isLoopback(flags.host)) {
    process.stderr.write(
      `warning: rein web listens on ${flags.host}, not loopback: anyone who can reach it and learns the token can run commands as you.\n`,
    )
  }
  process.stdout.write(`${server.address}\n`)
  process.stderr.write('rein web is serving; stop it with Ctrl-C.\n')
  if (flags.open) openBrowser(server.address)
  let signals: ReturnType<typeof onExitSignals> | undefined
  await new Promise<void>((resolve) => (signals = onExitSignals(() => resolve())))
  // Running turns end as Ctrl-C ends them in the terminal; every log is flushed and every lease released.
  await server.close()
  signals?.dispose()
  return signals?.code ?? 0
}

/** Opens `address` in the desktop's browser when there is one; where there is none, the printed address is enough. */
function openBrowser(address: string): void {
  const command = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open'
  try {
    const child = spawn(command, [address], { stdio: 'ignore', detached: true, env: childEnv(process.env) })
    child.on('error', () => {
      // No browser opener on this machine (a server, a container): the address is printed above.
    })
    child.unref()
  } catch {
    // Same as above: opening a browser is a convenience, never a reason to fail.
  }
}
