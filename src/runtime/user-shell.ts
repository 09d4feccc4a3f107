import type { Extension } from '../agent/extensions.js'
import { bashTool } from '../tools/bash.js'
import type { ToolState } from '../tools/tool.js'

/** The agent command a front end runs for a command the user typed after `!` (src/frontend/shell-command.ts). */
export const USER_SHELL_COMMAND = 'user-shell'

/** The longest a user's `!` command may run before it is killed: the bash tool's own ceiling. */
const USER_SHELL_TIMEOUT_MS = 600_000

let runs = 0

/**
 * Runs a command the user typed, with the bash tool's runner: the same sandbox, child environment (no secrets) and
 * bounded output (the tail, the rest spilled to a private file). No permission is asked: the user typed it. The
 * command only runs it; logging the output as the user's content is the front-end core's job, so this stays a
 * capability and not a second path into the model's input. `cancel` (Esc) aborts it and kills its process group.
 *
 * Result: outcome `ran` (`data.exitCode`, `data.output` as the model would read a bash result) or `empty`.
 */
export function userShell(state: ToolState): Extension {
  return {
    name: 'user-shell',
    commands: {
      [USER_SHELL_COMMAND]: async (input, signal, context) => {
        const command = input.text?.trim() ?? ''
        if (!command) return { outcome: 'empty', message: 'Type a command after !, for example !git status.' }
        const result = await bashTool.run(
          { command, timeout: USER_SHELL_TIMEOUT_MS },
          { cwd: context.cwd, callId: `user-shell-${++runs}`, signal, state, record: () => undefined },
        )
        const output = result.content.map((b) => (b.type === 'text' ? b.text : '')).join('\n')
        const meta = result.meta && typeof result.meta === 'object' && !Array.isArray(result.meta) ? result.meta : {}
        const exitCode = typeof meta.exitCode === 'number' ? meta.exitCode : -1
        const stopped = typeof meta.stopped === 'string' ? meta.stopped : null
        return { outcome: 'ran', message: output, data: { exitCode, output, stopped } }
      },
    },
  }
}
