import { Box, Static, useStdout } from 'ink'
import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react'
import type { AgentApi, PermissionAnswer, PermissionMode, PermissionRequest } from '../../agent/types.js'
import type { InputBlock } from '../../llm/messages.js'
import type { SessionEvent } from '../../session/events.js'
import { mentionedFiles, promptContent } from './attachments.js'
import { expansionOf } from './expand.js'
import { Footer } from './Footer.js'
import { ItemView } from './ItemView.js'
import { LiveView } from './LiveView.js'
import { PermissionPrompt } from './PermissionPrompt.js'
import { Picker, type PickerChoice } from './Picker.js'
import { PromptEditor, type KeyClaim, type SubmitHow } from './PromptEditor.js'
import { QueueList } from './QueueList.js'
import { ShellRunLine, useShellRun } from './ShellRun.js'
import { keepPrompt } from './history.js'
import { addMemoryLine, memoryLineOf } from './memory-line.js'
import { reinHome } from '../../store/home.js'
import { shellCommandOf } from '../../frontend/shell-command.js'
import { TodoList } from './TodoList.js'
import type { TuiExit, TuiServices } from './services.js'
import { commandChoices, isCustomCommand, parseSlash } from './slash-commands.js'
import type { PromptRoot } from '../../prompt-files/roots.js'
import { runSlash, type SlashContext } from './slash-run.js'
import { Transcript, type Item } from './transcript.js'
import { UsageLedger } from './usage-ledger.js'
import { useAttention } from './use-attention.js'
import { agentToolLookup } from '../../frontend/render/index.js'

export interface AppProps {
  agent: AgentApi
  services: TuiServices
  onExit(action: TuiExit): void
  /** Text to start the editor with (the prompt a fork starts from). */
  prefill?: string
  /** Lines shown first: the session banner, problems found while opening the agent. */
  initialNotices?: string[]
  /** The session's plugins as command folders (`promptRoots`), so their commands complete and run as custom commands. */
  promptRoots?: readonly PromptRoot[]
}

interface PendingAsk {
  request: PermissionRequest
  resolve(answer: PermissionAnswer): void
}

/** Cursor home, then erase the visible screen (not the scrollback). */
const CLEAR_VISIBLE_SCREEN = '\x1b[H\x1b[2J'

/** Two Esc presses this close together, while idle, open /rewind. */
const ESC_ESC_MS = 600

/** Rows kept free for the editor, queue and footer when sizing the live area. */
const RESERVED_ROWS = 9

/** The agent's log as an array: `session.events` when the session keeps them in memory. */
function eventsOf(agent: AgentApi): readonly SessionEvent[] {
  const events = (agent.session as { events?: readonly SessionEvent[] } | undefined)?.events
  return Array.isArray(events) ? events : []
}

/**
 * Builds the conversation and usage folds from history and keeps them current from the agent's live events. The
 * subscription is made together with the history load, so no event committed in between is missed.
 */
function useConversation(agent: AgentApi, services: TuiServices, notices: readonly string[]) {
  const [store] = useState(() => {
    const transcript = new Transcript(agentToolLookup(agent), agent.cwd)
    const ledger = new UsageLedger(services.facts, agent.config.model)
    const history = eventsOf(agent)
    transcript.load(history)
    ledger.load(history)
    for (const text of notices) transcript.note({ kind: 'notice', level: 'info', text })
    const unsubscribe = agent.subscribe((live) => {
      if (live.type === 'event') ledger.apply(live.event)
      transcript.apply(live)
    })
    return { transcript, ledger, unsubscribe }
  })
  useEffect(() => store.unsubscribe, [store])
  const [, setVersion] = useState(0)
  const snapshot = useSyncExternalStore(
    (listener) => store.transcript.subscribe(listener),
    () => store.transcript.snapshot(),
  )
  return {
    transcript: store.transcript,
    ledger: store.ledger,
    snapshot,
    busy: agent.busy,
    refresh: () => setVersion((v) => v + 1),
  }
}

function useTerminalSize(): { columns: number; rows: number } {
  const { stdout } = useStdout()
  const read = () => ({ columns: stdout.columns || 80, rows: stdout.rows || 24 })
  const [size, setSize] = useState(read)
  useEffect(() => {
    let columns = stdout.columns
    // Runs before ink's own resize handler. ink erases its last frame by counting lines up from the cursor, but the
    // terminal has already re-wrapped those lines at the new width, so part of the old frame stays on screen. On a
    // width change the visible screen is wiped first (the scrollback keeps the history) and ink draws afresh at the top.
    const beforeInk = () => {
      if (stdout.columns !== columns) stdout.write(CLEAR_VISIBLE_SCREEN)
      columns = stdout.columns
    }
    const onResize = () => setSize(read())
    stdout.prependListener('resize', beforeInk)
    stdout.on('resize', onResize)
    return () => {
      stdout.off('resize', beforeInk)
      stdout.off('resize', onResize)
    }
  }, [stdout])
  return size
}

/**
 * The whole interactive screen. Finished items go to `<Static>` (printed once into the scrollback); only the live
 * step, the queue, the prompt or picker and the footer redraw.
 */
export function App({ agent, services, onExit, prefill, initialNotices = [], promptRoots }: AppProps) {
  const { transcript, ledger, snapshot, busy, refresh } = useConversation(agent, services, initialNotices)
  const { columns, rows } = useTerminalSize()
  const [asks, setAsks] = useState<PendingAsk[]>([])
  const [picker, setPicker] = useState<{ title: string; choices: PickerChoice[]; onPick(value: string): void } | null>(null)
  const [hint, setHint] = useState<string | undefined>()
  const [vimKeys, setVimKeys] = useState(false)
  const [files, setFiles] = useState<readonly string[]>([])
  const fileSet = useMemo(() => new Set(files), [files])
  const commands = useMemo(() => commandChoices(agent.cwd, promptRoots), [agent, promptRoots])
  const tools = useMemo(() => agentToolLookup(agent), [agent])
  // The open permission prompt's key handler: the editor offers it each key first (PermissionPrompt.tsx).
  const promptKeys = useRef<KeyClaim | null>(null)
  const bindPromptKeys = useCallback((claim: KeyClaim | null) => {
    promptKeys.current = claim
  }, [])
  const history = useMemo(() => services.promptHistory?.load(agent.cwd) ?? [], [services, agent])
  const historyWarned = useRef(false)
  const shell = useShellRun(agent, (text) => transcript.note({ kind: 'notice', level: 'warning', text }), refresh)
  const claimKey = useCallback<KeyClaim>((input, key, editor) => promptKeys.current?.(input, key, editor) ?? false, [])

  useEffect(() => {
    services.workspaceFiles(agent.cwd).then(setFiles, (error: unknown) => {
      transcript.note({ kind: 'notice', level: 'warning', text: `Could not list workspace files for @ completion: ${String(error)}` })
    })
  }, [agent, services, transcript])

  useEffect(() => {
    agent.permissionAsker = (request, signal) =>
      new Promise<PermissionAnswer>((resolve) => {
        const entry: PendingAsk = { request, resolve }
        setAsks((list) => [...list, entry])
        signal.addEventListener(
          'abort',
          () => {
            setAsks((list) => list.filter((a) => a !== entry))
            resolve({ outcome: 'deny', note: 'The request was cancelled.' })
          },
          { once: true },
        )
      })
    return () => {
      agent.permissionAsker = undefined
    }
  }, [agent])

  const answer = useCallback(
    (ask: PendingAsk, reply: PermissionAnswer) => {
      setAsks((list) => list.filter((a) => a !== ask))
      if (reply.outcome === 'allow-always' && reply.rule) {
        try {
          services.addLocalAllowRule(agent.cwd, reply.rule)
          transcript.note({ kind: 'notice', level: 'info', text: `Added ${reply.rule} to .rein/settings.local.json.` })
        } catch (error) {
          transcript.note({
            kind: 'notice',
            level: 'warning',
            text: `Allowed this call, but could not save the rule: ${error instanceof Error ? error.message : String(error)}`,
          })
        }
      }
      ask.resolve(reply)
    },
    [agent, services, transcript],
  )

  const slashContext: SlashContext = {
    agent,
    ledger,
    services,
    events: () => eventsOf(agent),
    sessionId: () => String((agent.session as { id?: string } | undefined)?.id ?? ''),
    title: () => snapshot.title,
    say: (text, level = 'info') => transcript.note({ kind: 'notice', level, text }),
    show: (title, text) => transcript.note({ kind: 'expanded', title, text }),
    pick: (title, choices, onPick) =>
      setPicker({
        title,
        choices,
        onPick: (value) => {
          setPicker(null)
          onPick(value)
        },
      }),
    exit: onExit,
    refresh,
    toggleVim: () => {
      setVimKeys(!vimKeys)
      return !vimKeys
    },
  }

  const submit = (text: string, how: SubmitHow) => {
    if (shellCommandOf(text) !== undefined) return shell.run(text)
    if (memoryLineOf(text) !== undefined) return addMemoryLine(text, { home: reinHome(), cwd: agent.cwd, pick: slashContext.pick, say: slashContext.say })
    const slash = how === 'send' ? parseSlash(text) : undefined
    // A custom command (src/slash) is a prompt: the agent expands it, so it always opens a turn of its own.
    if (slash && isCustomCommand(agent.cwd, slash.name, promptRoots)) return void agent.followUp(text)
    if (slash) {
      runSlash(slashContext, slash.name, slash.arg)
        .catch((error: unknown) => {
          transcript.note({ kind: 'notice', level: 'error', text: error instanceof Error ? error.message : String(error) })
        })
        // A command that ran as the agent's phase (`/compact`) ends with no event: redraw so busy reads false again.
        .finally(refresh)
      return
    }
    const content = withAttachments(text)
    if (how === 'send' && agent.busy) agent.steer(content)
    else agent.followUp(content)
  }

  /** The prompt with the files its `@path`s name attached; a file that cannot be attached says why, the text still goes. */
  const withAttachments = (text: string): string | InputBlock[] => {
    const attach = services.attach
    const paths = attach ? mentionedFiles(text, fileSet) : []
    if (!attach || !paths.length) return text
    const attachments = paths.map((path) => attach(agent.cwd, path))
    for (const a of attachments) {
      if (a.kind === 'skipped') transcript.note({ kind: 'notice', level: 'warning', text: `@${a.path} is not attached: ${a.reason}.` })
    }
    return attachments.some((a) => a.kind === 'text' || a.kind === 'image') ? promptContent(text, attachments) : text
  }

  const takeBack = (): string | undefined => {
    const last = snapshot.queued[snapshot.queued.length - 1]
    if (!last) return undefined
    // The agent class offers `withdraw`; the AgentApi contract does not require it.
    const withdraw = (agent as unknown as { withdraw?: (id: string) => unknown }).withdraw
    if (typeof withdraw !== 'function' || !withdraw.call(agent, last.id)) return undefined
    return last.text
  }

  // Esc cancels a running turn; twice within ESC_ESC_MS while idle it opens /rewind (the key Claude Code users have).
  const lastEscape = useRef(0)
  const escape = () => {
    if (agent.busy) return agent.cancel()
    const now = Date.now()
    if (now - lastEscape.current < ESC_ESC_MS) {
      lastEscape.current = 0
      return submit('/rewind', 'send')
    }
    lastEscape.current = now
  }

  /** Shift+Tab: default → accept-edits → plan → default; bypass is only ever chosen on purpose (`--permission-mode`). */
  const cycleMode = () => {
    const order: PermissionMode[] = ['default', 'accept-edits', 'plan']
    const at = order.indexOf(agent.permissionMode)
    agent.setPermissionMode(order[(at + 1) % order.length])
    refresh()
  }

  const expand = () => {
    const item = transcript.lastCollapsed()
    const expansion = item ? expansionOf(item, eventsOf(agent)) : undefined
    if (expansion) transcript.note({ kind: 'expanded', ...expansion })
  }

  const ask = asks[0]
  useAttention(agent, ask?.request, services.notifications)
  const todoRows = snapshot.todos?.some((t) => t.status !== 'completed') ? Math.min(snapshot.todos.length, 8) + 2 : 0
  const liveRows = Math.max(4, rows - RESERVED_ROWS - snapshot.queued.length - todoRows)
  return (
    <Box flexDirection="column">
      <Static items={snapshot.finished as Item[]}>{(item) => <ItemView key={item.key} item={item} />}</Static>
      <LiveView live={snapshot.live} maxLines={liveRows} width={columns} />
      <ShellRunLine running={shell.running} />
      <QueueList items={snapshot.queued} width={columns} />
      <TodoList todos={snapshot.todos} width={columns} />
      {ask ? <PermissionPrompt key={ask.request.call.callId} request={ask.request} tools={tools} cwd={agent.cwd} onAnswer={(reply) => answer(ask, reply)} bindKeys={bindPromptKeys} /> : null}
      {picker ? <Picker key={picker.title} title={picker.title} choices={picker.choices} onPick={picker.onPick} onClose={() => setPicker(null)} /> : null}
      <PromptEditor
        active={!picker}
        busy={busy}
        asking={Boolean(ask)}
        maxRows={Math.max(3, rows - RESERVED_ROWS)}
        onCycleMode={cycleMode}
        claimKey={claimKey}
        files={files}
        history={history}
        vim={vimKeys}
        commands={commands}
        initialText={prefill}
        onSubmit={(text, how) => {
          keepPrompt(services.promptHistory, agent.cwd, text, (warning) => transcript.note({ kind: 'notice', level: 'warning', text: warning }), historyWarned)
          submit(text, how)
        }}
        onTakeBack={takeBack}
        onCancel={escape}
        onExpand={expand}
        onExit={() => onExit({ kind: 'quit' })}
        onInterrupt={shell.interrupt}
        onWarn={(text) => transcript.note({ kind: 'notice', level: 'warning', text })}
        onHint={setHint}
      />
      <Footer
        model={agent.config.model}
        effort={agent.config.effort}
        mode={agent.permissionMode}
        figures={ledger.figures(agent.config.model)}
        queued={snapshot.queued.length}
        busy={busy}
        hint={hint}
      />
    </Box>
  )
}
