import { render } from 'ink'
import { createElement } from 'react'
import { openAgentWithContext, type OpenAgentOptions } from '../../runtime/open.js'
import { credentialsPath, resolveApiKey } from '../../llm/credentials.js'
import { busySessionId } from '../../store/lease.js'
import { reinHome } from '../../store/home.js'
import { onExitSignals, type ExitSignals } from '../exit-signals.js'
import { App } from './App.js'
import { BRACKETED_PASTE_OFF, BRACKETED_PASTE_ON } from './bracketed-paste.js'
import { FirstRun } from './FirstRun.js'
import { TrustPrompt } from './TrustPrompt.js'
import { describeGrant, trustWorkspace, workspaceTrust } from '../../trust/workspace.js'
import { realServices } from './real-services.js'
import type { TuiExit } from './services.js'

export type TuiOptions = OpenAgentOptions & {
  stdin?: NodeJS.ReadStream
  stdout?: NodeJS.WriteStream
  /** Sent as the first prompt once the UI is up (`rein "fix the build"`). */
  initialPrompt?: string
}

/**
 * Runs the interactive terminal UI until the user quits; resolves with the process exit code. `/new`, `/resume` and
 * `/fork` close the current agent and open another in the same terminal: what was printed stays in the scrollback.
 */
export async function runTui(options: TuiOptions): Promise<number> {
  const stdin = options.stdin ?? process.stdin
  const stdout = options.stdout ?? process.stdout
  const env = options.env ?? process.env
  const home = options.home ?? reinHome(env)

  if (!stdin.isTTY) {
    process.stderr.write('The terminal UI needs an interactive terminal; use `rein -p "prompt"` in scripts and pipes.\n')
    return 2
  }
  if (!resolveApiKey(env, home) && !options.adapter) {
    const app = render(createElement(FirstRun, { credentialsFile: credentialsPath(home) }), { stdin, stdout })
    await app.waitUntilExit()
    return 1
  }

  // Bracketed paste lets the editor tell a paste from keys that arrive in one read (src/cli/tui/bracketed-paste.ts).
  // It is switched off again however the UI ends, so the shell afterwards does not see the markers.
  const pasteOff = (): void => {
    stdout.write(BRACKETED_PASTE_OFF)
  }
  stdout.write(BRACKETED_PASTE_ON)
  process.once('exit', pasteOff)
  try {
    return await runSessions(options, stdin, stdout, home, env)
  } finally {
    process.removeListener('exit', pasteOff)
    pasteOff()
  }
}

/** Runs agents one after another in the same terminal (`/new`, `/resume`, `/fork` switch) until the user quits. */
async function runSessions(
  options: TuiOptions,
  stdin: NodeJS.ReadStream,
  stdout: NodeJS.WriteStream,
  home: string,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  await askWorkspaceTrust({ cwd: options.cwd, home, once: options.trustProject, stdin, stdout })

  let open: OpenAgentOptions = { ...options, home, env }
  let prefill: string | undefined
  let initialPrompt = options.initialPrompt?.trim() || undefined
  for (;;) {
    let opened: Awaited<ReturnType<typeof openAgentWithContext>>
    try {
      opened = await openAgentWithContext(open)
    } catch (error) {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`)
      const busy = busySessionId(error)
      if (busy && (await offerFork(busy, stdin, stdout))) {
        open = { ...open, resume: undefined, continueLatest: false, fork: { id: busy } }
        continue
      }
      return 1
    }
    const { agent } = opened
    let signals: ExitSignals | undefined
    const exit = await new Promise<TuiExit>((resolve) => {
      // SIGTERM and SIGHUP (a closed terminal) end the UI like quitting during a turn: it is interrupted, tools are
      // killed and the log is closed before the process exits with 143 or 129.
      signals = onExitSignals(() => {
        agent.interrupt()
        app.unmount()
        resolve({ kind: 'quit' })
      })
      const app = render(
        createElement(App, {
          agent,
          services: realServices({ home, settings: opened.settings }),
          prefill,
          initialNotices: [sessionBanner(agent.session.id, open), ...opened.problems],
          onExit: (action: TuiExit) => {
            app.unmount()
            resolve(action)
          },
        }),
        { stdin, stdout, exitOnCtrlC: false },
      )
      // The conversation loads history and subscribes as it mounts, so the prompt's events are shown either way.
      if (initialPrompt) agent.followUp(initialPrompt)
      initialPrompt = undefined
    })
    signals?.dispose()
    await agent.close(signals?.received ? 'signal' : exit.kind === 'quit' ? 'exit' : 'switch')
    if (signals?.code) return signals.code
    if (exit.kind === 'quit') return 0
    prefill = exit.prefill
    open = {
      cwd: agent.cwd,
      home,
      env,
      model: agent.config.model,
      effort: agent.config.effort,
      permissionMode: agent.permissionMode,
      allow: options.allow,
      trustProject: options.trustProject,
      mcpServers: options.mcpServers,
      extensions: options.extensions,
      adapter: options.adapter,
      resume: exit.resume,
      fork: exit.fork,
    }
  }
}

/** The one trust question on first start in an untrusted workspace that defines anything needing trust. */
async function askWorkspaceTrust(options: {
  cwd: string
  home: string
  once?: boolean
  stdin: NodeJS.ReadStream
  stdout: NodeJS.WriteStream
}): Promise<void> {
  const trust = workspaceTrust({ cwd: options.cwd, home: options.home, once: options.once })
  if (trust.trusted || trust.grants.length === 0) return
  let answer = false
  const app = render(
    createElement(TrustPrompt, {
      dir: trust.dir,
      changed: trust.status === 'changed',
      grants: trust.grants.map(describeGrant),
      onAnswer: (yes: boolean) => (answer = yes),
    }),
    { stdin: options.stdin, stdout: options.stdout, exitOnCtrlC: false },
  )
  await app.waitUntilExit()
  if (answer) trustWorkspace({ cwd: options.cwd, home: options.home, shown: trust.grants })
}

function sessionBanner(id: string, open: OpenAgentOptions): string {
  const how = open.resume || open.continueLatest ? 'Resumed' : open.fork ? 'Forked into' : 'New'
  return `${how} session ${id.slice(0, 8)} in ${open.cwd}. /help lists commands.`
}

/**
 * A session another process is writing can still be read or copied: asks whether to continue in a fork now. Reads
 * one line; anything but `f` declines (the user is told how to read it instead).
 */
async function offerFork(id: string, stdin: NodeJS.ReadableStream, stdout: NodeJS.WritableStream): Promise<boolean> {
  const { createInterface } = await import('node:readline/promises')
  const question = createInterface({ input: stdin, output: stdout })
  try {
    const answer = await question.question(`Fork it and continue in the copy [f], or quit [q]? (To read it: rein sessions show ${id}) `)
    return answer.trim().toLowerCase().startsWith('f')
  } finally {
    question.close()
  }
}
