import type { SessionEvent } from '../../session/events.js'

/**
 * The setting `tui.notifications`: how the UI gets attention when a turn ends or a question waits. `bell` is BEL,
 * which every terminal (and tmux) turns into its bell or a marked tab; `osc9` is `ESC ] 9 ; text BEL` (iTerm2,
 * WezTerm, Ghostty, Windows Terminal show a desktop notification); `osc777` is `ESC ] 777 ; notify ; title ; text BEL`
 * (VTE terminals, urxvt, foot). `auto` picks OSC 9 or 777 where the terminal says it is one that shows them, else the
 * bell. Claude Code calls this `preferredNotifChannel`, Codex `tui.notification_method`.
 */
export type NotifyChannel = 'auto' | 'bell' | 'osc9' | 'osc777' | 'off'

export const NOTIFY_CHANNELS: readonly NotifyChannel[] = ['auto', 'bell', 'osc9', 'osc777', 'off']

/** A turn shorter than this ends without a notification: the user is most likely still watching. */
export const NOTIFY_AFTER_MS = 5000

/** The channel `auto` means in the terminal `env` describes. */
export function resolveChannel(channel: NotifyChannel, env: NodeJS.ProcessEnv): Exclude<NotifyChannel, 'auto'> {
  if (channel !== 'auto') return channel
  // Inside tmux an OSC would need passthrough the user may not have enabled; the bell always reaches tmux.
  if (env.TMUX) return 'bell'
  const program = env.TERM_PROGRAM ?? ''
  if (/^(iTerm\.app|WezTerm|ghostty)$/i.test(program) || env.WT_SESSION) return 'osc9'
  if (env.VTE_VERSION || /^foot/.test(env.TERM ?? '')) return 'osc777'
  return 'bell'
}

/** Text safe inside an OSC string: no control characters (a BEL or ESC would end it early), `;` kept out of fields. */
function oscText(text: string, field: boolean): string {
  // Control characters are what this removes.
  // eslint-disable-next-line no-control-regex
  const plain = text.replace(/[\x00-\x1f\x7f-\x9f]/g, ' ').slice(0, 200)
  return field ? plain.replace(/;/g, ',') : plain
}

/** The bytes that notify on `channel`; empty for `off`. */
export function notificationBytes(channel: Exclude<NotifyChannel, 'auto'>, title: string, body: string): string {
  switch (channel) {
    case 'bell':
      return '\x07'
    case 'osc9':
      return `\x1b]9;${oscText(`${title}: ${body}`, false)}\x07`
    case 'osc777':
      return `\x1b]777;notify;${oscText(title, true)};${oscText(body, false)}\x07`
    case 'off':
      return ''
  }
}

/**
 * Decides when to notify: a turn that ran at least `NOTIFY_AFTER_MS` ended, or a question (a permission or a plan)
 * opened in a turn that has run that long — and, where the terminal reports focus, only while it is not focused.
 */
export class AttentionNotifier {
  private turnStarted?: number

  constructor(
    private readonly options: {
      channel: Exclude<NotifyChannel, 'auto'>
      write(bytes: string): void
      /** Whether the terminal is focused; undefined when it does not say. */
      focused(): boolean | undefined
      now?(): number
    },
  ) {}

  private now(): number {
    return this.options.now?.() ?? Date.now()
  }

  private send(body: string): void {
    if (this.options.focused() === true) return
    const bytes = notificationBytes(this.options.channel, 'Rein', body)
    if (bytes) this.options.write(bytes)
  }

  private longEnough(): boolean {
    return this.turnStarted !== undefined && this.now() - this.turnStarted >= NOTIFY_AFTER_MS
  }

  /** Every committed event of the session. */
  event(event: SessionEvent): void {
    if (event.type === 'turn/start') this.turnStarted = this.now()
    if (event.type !== 'turn/end') return
    const long = this.longEnough()
    this.turnStarted = undefined
    if (!long) return
    const reason = (event.data as { reason?: string }).reason
    // A cancelled turn was cancelled by the user, who is there.
    if (reason === 'aborted') return
    this.send(reason === 'completed' ? 'The turn finished.' : `The turn ended (${reason}).`)
  }

  /** A question is waiting for the user: `what` says which (`Permission needed: bash npm test`). */
  asked(what: string): void {
    if (this.longEnough()) this.send(what)
  }
}
