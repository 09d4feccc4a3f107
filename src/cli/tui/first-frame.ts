import type { ChalkInstance } from 'chalk'
import type { OpenAgentOptions } from '../../runtime/open.js'

/**
 * The terminal UI's first frame, drawn with plain writes before ink, React and the agent have loaded (they take most
 * of start-up: docs/performance.md). It is the top of what ink draws for a new session — the session banner and the
 * empty prompt box — with the same characters and styles; ink's own first frame then replaces it in place
 * (`handOver`), adding the footer and any start-up notices. Only a new session gets it: a resumed one shows its
 * history first, which needs the log.
 *
 * Must hold: `plainFrame(...).text` is what ink renders for the same banner and width (test/tui/first-frame.test.tsx
 * renders both), so the hand-over changes nothing on screen.
 */

/** The banner line every session starts with (also the first line of the plain frame). */
export function sessionBanner(id: string, open: Pick<OpenAgentOptions, 'resume' | 'continueLatest' | 'fork' | 'cwd'>): string {
  const how = open.resume || open.continueLatest ? 'Resumed' : open.fork ? 'Forked into' : 'New'
  return `${how} session ${id.slice(0, 8)} in ${open.cwd}. /help lists commands.`
}

/** The placeholder an empty, idle prompt editor shows (PromptEditor.tsx; the equality test catches a change there). */
export const PROMPT_PLACEHOLDER = 'ask Rein, or /help'

/**
 * The styles of ink's `dimColor`, `color="gray"`, `color="cyan"` and `inverse`. ink colours text with chalk, so the
 * frame is drawn with chalk too: the same module instance, which decides once, when it loads, whether the terminal
 * has colour. It is loaded when the frame is drawn, not when the UI's code is (see `drawFirstFrame`).
 */
export type FrameStyles = Pick<ChalkInstance, 'dim' | 'gray' | 'cyan' | 'inverse'>

/** Characters this frame can lay out itself: one column each, so a line's length is its width. */
const NARROW = /^[\x20-\x7e]*$/

/**
 * The plain frame for `banner` in a terminal `columns` wide, or `undefined` when it could not be drawn exactly as ink
 * would (a banner that wraps or holds characters of other widths, a terminal too narrow for the prompt box).
 * `lines` is how many terminal lines it covers, ending with the cursor at the start of the line below.
 */
export function plainFrame(banner: string, columns: number, s: FrameStyles): { text: string; lines: number } | undefined {
  const notice = `· ${banner}`
  // The box's border and padding take four columns; inside: the prompt mark, the cursor cell, the placeholder.
  const inner = columns - 4
  const content = `›  ${PROMPT_PLACEHOLDER}`
  if (!NARROW.test(banner) || notice.length > columns || content.length > inner) return undefined
  const rule = '─'.repeat(columns - 2)
  const text = [
    s.dim(notice),
    s.gray(`╭${rule}╮`),
    `${s.gray('│')} ${s.cyan('› ')}${s.inverse(' ')}${s.dim(PROMPT_PLACEHOLDER)}${' '.repeat(inner - content.length)} ${s.gray('│')}`,
    s.gray(`╰${rule}╯`),
  ]
  return { text: `${text.join('\n')}\n`, lines: text.length }
}

/** What `drawFirstFrame` leaves for the hand-over: the session id it announced and how to take the frame back. */
export interface EarlyFrame {
  /** The id the banner names: the session must be created with it. */
  sessionId: string
  /**
   * Makes the next write to `stdout` (ink's first frame) start by erasing the plain frame, inside ink's synchronized
   * update when it uses one, so the terminal never shows the frame half replaced.
   */
  handOver(): void
  /** Erases the plain frame now and gives the terminal back (opening the agent failed; an error follows). */
  withdraw(): void
}

const SYNC_START = '\x1b[?2026h'
const HIDE_CURSOR = '\x1b[?25l'
const SHOW_CURSOR = '\x1b[?25h'

/** Ctrl+C as a terminal in raw mode delivers it. */
const CTRL_C = 0x03

/**
 * Draws the plain first frame of a new session when the terminal allows it, else returns `undefined` (ink then draws
 * the first frame as before). Raw mode goes on here, as ink would, so nothing typed lands in the frame as an echo.
 * What is typed until ink takes over is held and handed to ink's first read, in order; Ctrl+C among it interrupts the
 * start as it would have before the frame (the default SIGINT: exit 130), since nothing else would read it until the
 * agent is open, and opening can wait on a slow MCP server.
 */
export async function drawFirstFrame(
  options: Pick<OpenAgentOptions, 'cwd'>,
  stdin: NodeJS.ReadStream,
  stdout: NodeJS.WriteStream,
  newId: () => string,
): Promise<EarlyFrame | undefined> {
  // chalk reads the environment once, when it loads; loaded here, it sees the user's (index.ts hides CI only while
  // ink loads, and `rein`'s command code sets CI to "0" around loading the UI's first module, which chalk reads as CI).
  const { default: chalk } = await import('chalk')
  const sessionId = newId()
  const frame = plainFrame(sessionBanner(sessionId, options), stdout.columns ?? 0, chalk)
  if (!frame || !stdout.isTTY || !stdin.isTTY || (stdout.rows ?? 0) <= frame.lines) return undefined
  const erase = `\x1b[${frame.lines}A\r\x1b[J`
  const showCursor = (): void => void stdout.write(SHOW_CURSOR)
  const typed: Buffer[] = []
  let settled = false
  /**
   * Stops holding keys; what was held goes back to the front of stdin for the next reader. Keys are read in paused
   * mode ('readable'), never flowing: pausing a flowing tty stream stops its reads in a way a later 'readable'
   * listener (ink's) does not restart, and the process would then end with nothing left to wait on.
   */
  const release = (): void => {
    settled = true
    process.removeListener('exit', showCursor)
    stdin.removeListener('readable', hold)
    if (typed.length) stdin.unshift(Buffer.concat(typed))
  }
  const withdraw = (): void => {
    if (settled) return
    release()
    stdout.write(erase + SHOW_CURSOR)
    stdin.setRawMode(false)
    // Holding keys started the terminal's reads; nothing reads it now, and it must not keep the process alive.
    stdin.unref()
  }
  const hold = (): void => {
    for (let chunk: Buffer | string | null; (chunk = stdin.read() as Buffer | string | null) !== null; ) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
      if (bytes.includes(CTRL_C)) {
        withdraw()
        process.kill(process.pid, 'SIGINT')
        return
      }
      typed.push(bytes)
    }
  }
  stdin.setRawMode(true)
  stdin.on('readable', hold)
  stdout.write(`${HIDE_CURSOR}${frame.text}`)
  // ink shows the cursor again whenever it ends; until it has taken over, this does.
  process.once('exit', showCursor)
  return {
    sessionId,
    handOver() {
      if (settled) return
      release()
      const own = Object.getOwnPropertyDescriptor(stdout, 'write')
      const write = stdout.write
      stdout.write = function firstWrite(this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]): boolean {
        if (own) Object.defineProperty(stdout, 'write', own)
        else delete (stdout as { write?: unknown }).write
        const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk)
        const out = text.startsWith(SYNC_START) ? SYNC_START + erase + text.slice(SYNC_START.length) : erase + text
        return (write as (chunk: string, ...rest: unknown[]) => boolean).call(this, out, ...rest)
      } as typeof stdout.write
    },
    withdraw,
  }
}
