import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Bracketed paste off and the cursor shown while another program owns the terminal; both restored after it. */
const HAND_OVER = '\x1b[?2004l\x1b[?25h'
const TAKE_BACK = '\x1b[?2004h'

export interface TerminalHandle {
  stdin: NodeJS.ReadStream
  stdout: NodeJS.WriteStream
}

export type EditOutcome = { kind: 'edited'; text: string } | { kind: 'failed'; message: string }

/** `$VISUAL`, else `$EDITOR`, as the shell would run it (it may carry arguments: `code --wait`). */
export function chosenEditor(env: NodeJS.ProcessEnv): string | undefined {
  return env.VISUAL?.trim() || env.EDITOR?.trim() || undefined
}

const quoted = (path: string) => `'${path.replace(/'/g, `'\\''`)}'`

/**
 * Ctrl+G: the prompt in the user's editor. The text goes to a private temporary file (its folder 0700, the file
 * 0600), the terminal leaves raw mode and bracketed paste, and the editor runs with the terminal inherited. The UI
 * is frozen meanwhile (the editor owns the terminal; nothing may draw over it), then raw mode and bracketed paste
 * come back and the file's text (one trailing newline, which editors add, dropped) replaces the prompt. An editor
 * that fails leaves the prompt as it was and says why in one sentence.
 */
export function editInExternalEditor(text: string, terminal: TerminalHandle, env: NodeJS.ProcessEnv = process.env): EditOutcome {
  const editor = chosenEditor(env)
  if (!editor) return { kind: 'failed', message: 'Set $VISUAL or $EDITOR to edit the prompt in your editor (for example export EDITOR=vim).' }
  const dir = mkdtempSync(join(tmpdir(), 'rein-prompt-'))
  const file = join(dir, 'prompt.md')
  const raw = terminal.stdin.isTTY === true
  try {
    writeFileSync(file, text, { mode: 0o600 })
    if (raw) terminal.stdin.setRawMode(false)
    terminal.stdout.write(HAND_OVER)
    const run = spawnSync(`${editor} ${quoted(file)}`, { shell: true, stdio: 'inherit', env })
    if (run.error) return { kind: 'failed', message: `Could not start the editor (${editor}): ${run.error.message}; the prompt is unchanged.` }
    if (run.status !== 0) {
      const how = run.signal ? `was stopped by ${run.signal}` : `exited with code ${run.status}`
      return { kind: 'failed', message: `The editor (${editor}) ${how}; the prompt is unchanged.` }
    }
    return { kind: 'edited', text: readFileSync(file, 'utf8').replace(/\r?\n$/, '') }
  } catch (error) {
    return { kind: 'failed', message: `Could not edit the prompt in ${editor}: ${error instanceof Error ? error.message : String(error)}; the prompt is unchanged.` }
  } finally {
    if (raw) terminal.stdin.setRawMode(true)
    terminal.stdout.write(TAKE_BACK)
    rmSync(dir, { recursive: true, force: true })
  }
}
