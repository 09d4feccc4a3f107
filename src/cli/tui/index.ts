import { randomUUID } from 'node:crypto'
import type { OpenAgentOptions } from '../../runtime/open.js'
import { credentialsPath, resolveApiKey } from '../../llm/credentials.js'
import { reinHome } from '../../store/home.js'
import { workspaceTrust } from '../../runtime/workspace-trust.js'
import { BRACKETED_PASTE_OFF, BRACKETED_PASTE_ON } from './bracketed-paste.js'
import { drawFirstFrame } from './first-frame.js'
import { FOCUS_REPORTS_OFF, FOCUS_REPORTS_ON, watchTerminalReports } from './terminal-reports.js'
import { BACKGROUND_QUERY } from './theme.js'
import { withoutCiEnv } from './without-ci.js'

export type TuiOptions = OpenAgentOptions & {
  stdin?: NodeJS.ReadStream
  stdout?: NodeJS.WriteStream
  /** Sent as the first prompt once the UI is up (`rein "fix the build"`). */
  initialPrompt?: string
}

/**
 * Runs the interactive terminal UI until the user quits; resolves with the process exit code. `/new`, `/resume` and
 * `/fork` close the current agent and open another in the same terminal: what was printed stays in the scrollback.
 *
 * Start-up order (docs/performance.md): this module loads only what decides the first screen — the key, the
 * workspace's trust — and, for a new session that needs no trust question, draws the first frame with plain writes
 * (first-frame.ts). Then it loads ink, React and the agent (session-loop.ts), opens the session with the id the
 * frame announced, and ink takes the frame over. Keys typed meanwhile wait in the terminal for the editor.
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
    await (await loadSessionLoop()).showFirstRun(credentialsPath(home), stdin, stdout)
    return 1
  }

  // Bracketed paste lets the editor tell a paste from keys that arrive in one read (src/cli/tui/bracketed-paste.ts).
  // It is switched off again however the UI ends, so the shell afterwards does not see the markers.
  // Focus reports (for notifications) and the background query (for the theme) are answered on stdin; the answers
  // are taken out of every read before a key handler sees them (terminal-reports.ts), and nothing waits for them.
  const unwatch = watchTerminalReports(stdin)
  const pasteOff = (): void => {
    stdout.write(BRACKETED_PASTE_OFF + FOCUS_REPORTS_OFF)
  }
  stdout.write(BRACKETED_PASTE_ON + FOCUS_REPORTS_ON + (env.COLORFGBG ? '' : BACKGROUND_QUERY))
  process.once('exit', pasteOff)
  try {
    const trust = workspaceTrust({ cwd: options.cwd, home, once: options.trustProject })
    const asksTrust = !trust.trusted && trust.grants.length > 0
    const fresh = !options.resume && !options.continueLatest && !options.fork && !options.sessionId
    const early = fresh && !asksTrust ? await drawFirstFrame(options, stdin, stdout, randomUUID) : undefined
    const { runSessions } = await loadSessionLoop()
    return await runSessions(options, { stdin, stdout, home, env }, { trust, early })
  } finally {
    process.removeListener('exit', pasteOff)
    pasteOff()
    unwatch()
  }
}

/** Loads the ink half of the UI, out of sight of `CI` (see `withoutCiEnv`). */
function loadSessionLoop(): Promise<typeof import('./session-loop.js')> {
  return withoutCiEnv(() => import('./session-loop.js'))
}
