import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'

/** Fails loudly when tmux is missing: the terminal tests must never be skipped silently (CI installs tmux). */
export function requireTmux(): void {
  const probe = spawnSync('tmux', ['-V'], { encoding: 'utf8' })
  if (probe.error || probe.status !== 0) {
    throw new Error('tmux is not installed: the terminal UI tests need it (apt-get install tmux, brew install tmux).')
  }
}

export function requireBuild(cli: string): void {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build first with \`npx tsc -p .\` (npm test does).`)
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`
}

let counter = 0

/**
 * One real terminal: a detached tmux session on a private server socket, running a command. The screen is read
 * with `capture-pane -p`, keys are sent with `send-keys`. The shell prints `EXITED <code>` when the command ends.
 */
export class Terminal {
  readonly socket = `rein-tui-${process.pid}-${counter++}`
  readonly name = 'main'

  constructor(
    command: string[],
    options: { cwd: string; env: NodeJS.ProcessEnv; columns: number; rows: number },
  ) {
    const envPrefix = Object.entries(options.env)
      .filter(([k, v]) => v !== undefined && /^[A-Z_][A-Z0-9_]*$/.test(k))
      .map(([k, v]) => `${k}=${shellQuote(String(v))}`)
      .join(' ')
    const script = `cd ${shellQuote(options.cwd)} && env -i ${envPrefix} ${command.map(shellQuote).join(' ')}; echo EXITED $?; sleep 30`
    this.tmux(['new-session', '-d', '-s', this.name, '-x', String(options.columns), '-y', String(options.rows), script])
  }

  private tmux(args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, '-f', '/dev/null', ...args], { encoding: 'utf8' })
  }

  /** The visible screen, trailing blank lines dropped. */
  screen(): string {
    return this.tmux(['capture-pane', '-p', '-t', this.name]).replace(/\n+$/, '')
  }

  /** The screen plus the scrollback. */
  history(): string {
    return this.tmux(['capture-pane', '-p', '-S', '-2000', '-t', this.name]).replace(/\n+$/, '')
  }

  /** Types text literally (one write: the UI sees it as typed or pasted text, never as keys). */
  type(text: string): void {
    this.tmux(['send-keys', '-t', this.name, '-l', text])
  }

  /** Sends named keys (`Enter`, `Escape`, `Up`, `C-c`), each in its own write so none is read as a paste. */
  async keys(...keys: string[]): Promise<void> {
    for (const key of keys) {
      this.tmux(['send-keys', '-t', this.name, key])
      await sleep(120)
    }
  }

  /**
   * Sends text and then named keys in one tmux command, so the program reads them in one chunk as a fast typist,
   * typed-ahead input or a laggy link delivers them (`send-keys "text" Enter`).
   */
  sendAtOnce(text: string, ...keys: string[]): void {
    this.tmux(['send-keys', '-t', this.name, text, ...keys])
  }

  /**
   * Pastes text as a terminal does: tmux wraps it in bracketed-paste markers when the program turned that mode on,
   * and sends its newlines as carriage returns.
   */
  paste(text: string): void {
    this.tmux(['set-buffer', '-b', 'rein-test', text])
    this.tmux(['paste-buffer', '-p', '-d', '-b', 'rein-test', '-t', this.name])
  }

  /** Appends every byte the program writes to the terminal from now on to `file` (tmux `pipe-pane`). */
  captureOutput(file: string): void {
    this.tmux(['pipe-pane', '-o', '-t', this.name, `cat >> ${shellQuote(file)}`])
  }

  /** Resizes the terminal, as a user dragging the window's edge does. */
  resize(columns: number, rows: number): void {
    this.tmux(['resize-window', '-t', this.name, '-x', String(columns), '-y', String(rows)])
  }

  /** Types a line, then presses Enter separately. */
  async submit(text: string): Promise<void> {
    this.type(text)
    await sleep(150)
    await this.keys('Enter')
  }

  /** Waits until the screen (or the scrollback, with `scrollback`) matches; fails with what it shows. */
  async waitFor(pattern: string | RegExp, options: { timeoutMs?: number; scrollback?: boolean } = {}): Promise<string> {
    const deadline = Date.now() + (options.timeoutMs ?? 15_000)
    for (;;) {
      const text = options.scrollback ? this.history() : this.screen()
      if (typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text)) return text
      if (Date.now() > deadline) {
        throw new Error(`the terminal never showed ${String(pattern)}; it shows:\n${text}`)
      }
      await sleep(100)
    }
  }

  close(): void {
    try {
      this.tmux(['kill-server'])
    } catch {
      // The server is already gone (its only session ended): nothing to clean up.
    }
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms))
}
