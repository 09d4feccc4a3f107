import { render } from 'ink'
import { createElement } from 'react'
import type { Extension } from '../../agent/extensions.js'
import { openAgentWithContext, type OpenAgentOptions } from '../../runtime/open.js'
import { promptRoots } from '../../plugins/roots.js'
import { busySessionId } from '../../store/lease.js'
import { describeGrant, type WorkspaceTrust } from '../../trust/workspace.js'
import { trustWorkspace } from '../../runtime/workspace-trust.js'
import { onExitSignals, type ExitSignals } from '../../frontend/exit-signals.js'
import { App } from './App.js'
import { loadHighlighter } from './code-highlight.js'
import { sessionBanner, type EarlyFrame } from './first-frame.js'
import { FirstRun } from './FirstRun.js'
import { realServices } from './real-services.js'
import type { TuiExit } from './services.js'
import { TrustPrompt } from './TrustPrompt.js'
import { applyThemeSetting } from './terminal-reports.js'
import type { TuiOptions } from './index.js'

/**
 * The part of the terminal UI that needs ink, React and the agent: loaded by `runTui` after the first frame is on
 * screen (index.ts), so none of it delays that frame.
 */

/** Shown instead of the conversation when no DeepSeek key is configured; resolves once the user closed it. */
export async function showFirstRun(credentialsFile: string, stdin: NodeJS.ReadStream, stdout: NodeJS.WriteStream): Promise<void> {
  const app = render(createElement(FirstRun, { credentialsFile }), { stdin, stdout })
  await app.waitUntilExit()
}

/**
 * Waits for the code highlighter before the first request of a session, so the answer it brings — printed once into
 * the scrollback — is never drawn with its code plain (code-highlight.ts).
 */
const highlighterReady: Extension = { name: 'tui-highlighter', beforeRequest: () => loadHighlighter() }

/** Runs agents one after another in the same terminal (`/new`, `/resume`, `/fork` switch) until the user quits. */
export async function runSessions(
  options: TuiOptions,
  io: { stdin: NodeJS.ReadStream; stdout: NodeJS.WriteStream; home: string; env: NodeJS.ProcessEnv },
  start: { trust: WorkspaceTrust; early?: EarlyFrame },
): Promise<number> {
  const { stdin, stdout, home, env } = io
  await askWorkspaceTrust({ cwd: options.cwd, home, trust: start.trust, stdin, stdout })

  let early = start.early
  let open: OpenAgentOptions = { ...options, home, env, ...(early ? { sessionId: early.sessionId } : {}) }
  let prefill: string | undefined
  let initialPrompt = options.initialPrompt?.trim() || undefined
  for (;;) {
    let opened: Awaited<ReturnType<typeof openAgentWithContext>>
    try {
      opened = await openAgentWithContext({ ...open, extensions: [...(open.extensions ?? []), highlighterReady] })
      // A resumed or forked session prints its history at once: its code blocks need the highlighter first.
      if (open.resume || open.continueLatest || open.fork) await loadHighlighter()
    } catch (error) {
      early?.withdraw()
      early = undefined
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`)
      const busy = busySessionId(error)
      if (busy && (await offerFork(busy, stdin, stdout))) {
        open = { ...open, resume: undefined, continueLatest: false, fork: { id: busy } }
        continue
      }
      return 1
    }
    const { agent } = opened
    applyThemeSetting(opened.settings.tui?.theme ?? 'auto', env)
    let signals: ExitSignals | undefined
    early?.handOver()
    early = undefined
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
          services: realServices({ home, settings: opened.settings, ...(options.sandbox !== undefined ? { sandbox: options.sandbox } : {}) }),
          prefill,
          initialNotices: [sessionBanner(agent.session.id, open), ...opened.problems],
          promptRoots: promptRoots(opened.plugins),
          onExit: (action: TuiExit) => {
            // A switch draws a new screen below: the old live area (the picker that chose it) is erased, not left behind.
            if (action.kind !== 'quit') app.clear()
            app.unmount()
            resolve(action)
          },
        }),
        { stdin, stdout, exitOnCtrlC: false },
      )
      // The conversation loads history and subscribes as it mounts, so the prompt's events are shown either way.
      if (initialPrompt) agent.followUp(initialPrompt)
      initialPrompt = undefined
      // The first frame is on screen: load the highlighter now, while the user reads or types.
      setImmediate(() => void loadHighlighter())
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
  trust: WorkspaceTrust
  stdin: NodeJS.ReadStream
  stdout: NodeJS.WriteStream
}): Promise<void> {
  const { trust } = options
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
