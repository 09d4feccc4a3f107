import { Command, InvalidArgumentError, Option } from 'commander'
import { existsSync, statSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Effort } from '../../llm/adapter.js'
import { missingKeyMessage, resolveApiKey } from '../../llm/credentials.js'
import { reinHome } from '../../store/home.js'
import type { PermissionMode } from '../../agent/types.js'
import type { OpenAgentOptions } from '../../runtime/open.js'
import type { InputFormat, OutputFormat } from '../print/print-mode.js'
import { fail, UsageError } from '../fail.js'
import { withoutCiEnv } from '../tui/without-ci.js'
import { isValidUserId } from '../../llm/user-id.js'
import { addClaudeFlags, claudeRun, effortArg, permissionModeArg, type ClaudeFlags } from '../print/claude-flags.js'

/** Options shared by one-shot mode and the terminal UI. */
export interface RunFlags extends ClaudeFlags {
  print?: string | boolean
  outputFormat: OutputFormat
  inputFormat?: InputFormat
  includePartialMessages?: boolean
  model?: string
  effort?: Effort
  resume?: string
  continue?: boolean
  fork?: string
  maxTurns?: number
  userId?: string
  maxBudgetUsd?: number
  maxBudgetTokens?: number
  cwd?: string
  permissionMode?: PermissionMode
  allow?: string[]
  trustProject?: boolean
  /** The old spelling of `--trust-project`, kept as an alias. */
  trustProjectHooks?: boolean
  /** `--sandbox` true, `--no-sandbox` false, neither undefined (settings decide). */
  sandbox?: boolean
  /** Approve the plan `exit_plan_mode` presents, continuing in this mode (docs/permissions.md, plan mode). */
  approvePlan?: 'default' | 'accept-edits'
  store?: string
  sessionId?: string
}

const positiveUsd = (value: string): number => {
  const n = Number(value)
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected an amount of US dollars above 0, such as 0.50.')
  return n
}

const positiveInt = (value: string): number => {
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number of at least 1.')
  return n
}

/** `rein [prompt]` opens the terminal UI; `rein -p "<prompt>"` runs one prompt and exits. */
export function registerRunCommand(program: Command): void {
  program
    .argument('[prompt...]', 'prompt (with -p), or the first prompt of the terminal UI')
    .option('-p, --print [prompt]', 'run one prompt to completion and print the result')
    .addOption(
      new Option('--output-format <format>', "output of -p: stream-json is Claude Code's, events is Rein's own log stream")
        .choices(['text', 'json', 'stream-json', 'events'])
        .default('text'),
    )
    .addOption(
      new Option('--input-format <format>', 'input of -p: stream-json reads user messages as JSON lines on stdin')
        .choices(['text', 'stream-json'])
        .default('text'),
    )
    .option('--include-partial-messages', 'with --output-format stream-json: also print streaming deltas (stream_event lines)')
    .option('--model <id>', 'model id (default deepseek-flash; `rein models` lists the catalog); Claude names such as sonnet run DeepSeek\'s model for them')
    .addOption(new Option('--effort <level>', 'thinking effort: off, low, high or max (Claude Code\'s medium is high, xhigh is max)').argParser(effortArg))
    .option('--resume <id>', 'resume a session (id or unique prefix)')
    .option('-c, --continue', 'resume the latest session of this directory')
    .option('--fork <id[@seq]>', 'start a new session from a copy of another, up to a seq')
    .option('--max-turns <n>', 'stop a turn after this many model requests', positiveInt)
    .option('--max-budget-usd <usd>', "stop before a model request once this run's requests cost this much (catalog prices)", positiveUsd)
    .option('--max-budget-tokens <n>', "stop before a model request once this run's requests used this many tokens (input and output)", positiveInt)
    .option('--user-id <id>', "DeepSeek's user_id for this run's requests (a tenant or task; default: userId in settings, else a per-user hash)")
    .option('--cwd <dir>', 'working directory (default: the current one)')
    .addOption(
      new Option('--permission-mode <mode>', 'default, accept-edits, plan or bypass (or Claude Code\'s acceptEdits, bypassPermissions, dontAsk)').argParser(permissionModeArg),
    )
    .option('--allow <rule...>', 'extra allow rules for this run, e.g. "Bash(npm test)"')
    .option('--trust-project', "trust this workspace's settings, hooks and MCP servers for this run only")
    .option('--sandbox', 'run shell commands under bubblewrap; confined commands need no prompt (docs/sandbox.md)')
    .option('--no-sandbox', 'run shell commands unconfined, whatever the settings say')
    .addOption(new Option('--trust-project-hooks', 'alias of --trust-project').hideHelp())
    .addOption(new Option('--approve-plan <mode>', 'in plan mode, approve the plan and continue in this mode').choices(['default', 'accept-edits']))
    .option('--session-id <id>', 'start the new session with this id (letters, digits and dashes), as rein batch does')
    .option('--store <url>', 'session store: jsonl (default) or postgres://user@host/db (also REIN_STORE, store.url)')
  addClaudeFlags(program)
  program.action(async (words: string[], flags: RunFlags, command: Command) => {
    try {
      // Claude Code's one-shot mode without -p (the Agent SDK never passes it): piped input and a machine format.
      const machine = flags.inputFormat === 'stream-json' || command.getOptionValueSource('outputFormat') === 'cli'
      if ((flags.print === undefined || flags.print === false) && !process.stdin.isTTY && machine) flags.print = true
      process.exitCode = await run(words, flags)
    } catch (error) {
      fail(error)
    }
  })
}

async function run(words: string[], flags: RunFlags): Promise<number> {
  const open = agentOptions(flags)
  const env = process.env
  if (flags.print === undefined || flags.print === false) {
    if (!process.stdin.isTTY) {
      throw new UsageError('The terminal UI needs a terminal; use -p "<prompt>" to run one prompt without one.')
    }
    const { runTui } = await importTuiOutsideCi()
    return runTui({ ...open, initialPrompt: words.join(' ') || undefined })
  }
  let prompt = [typeof flags.print === 'string' ? flags.print : '', ...words].filter(Boolean).join(' ')
  const streamInput = flags.inputFormat === 'stream-json'
  if (streamInput && flags.outputFormat !== 'stream-json' && flags.outputFormat !== 'events') {
    throw new UsageError('--input-format stream-json needs --output-format stream-json (or events), which prints a result per turn.')
  }
  if (flags.includePartialMessages && flags.outputFormat !== 'stream-json') {
    throw new UsageError('--include-partial-messages needs --output-format stream-json.')
  }
  if (!process.stdin.isTTY && !streamInput) {
    const piped = await readStdin()
    if (piped.trim()) prompt = prompt ? `${prompt}\n\n${piped}` : piped
  }
  if (!prompt.trim() && !streamInput) throw new UsageError('No prompt given: pass one after -p, or pipe it on standard input.')
  const home = open.home ?? reinHome(env)
  if (!resolveApiKey(env, home)) throw new UsageError(missingKeyMessage(home))
  const { runPrint } = await import('../print/print-mode.js')
  return runPrint({
    ...open,
    prompt,
    outputFormat: flags.outputFormat,
    inputFormat: flags.inputFormat,
    includePartialMessages: flags.includePartialMessages,
    permissionPromptTool: flags.permissionPromptTool,
    dontAsk: flags.dontAsk === true,
  })
}

/** Turns the shared flags into `openAgent` options, checking what can be checked before anything starts. */
export function agentOptions(flags: RunFlags): OpenAgentOptions {
  const cwd = resolve(flags.cwd ?? process.cwd())
  if (!existsSync(cwd)) throw new UsageError(`The working directory ${cwd} does not exist.`)
  if (!statSync(cwd).isDirectory()) throw new UsageError(`The working directory ${cwd} is a file, not a directory; pass its folder to --cwd.`)
  const picked = [flags.resume, flags.continue, flags.fork].filter(Boolean).length
  if (picked > 1) throw new UsageError('Use only one of --resume, --continue and --fork.')
  let fork: OpenAgentOptions['fork']
  if (flags.fork) {
    const [id, at] = flags.fork.split('@')
    const seq = at === undefined ? undefined : Number(at)
    if (seq !== undefined && (!Number.isInteger(seq) || seq < 0)) {
      throw new UsageError(`--fork ${flags.fork}: the part after @ must be an event seq (a whole number).`)
    }
    fork = { id, seq }
  }
  const claude = claudeRun(flags, cwd, (message) => process.stderr.write(`rein: ${message}\n`))
  if (claude.forkSession) {
    if (!flags.resume) throw new UsageError('--fork-session needs --resume <id>: it continues that session as a new one.')
    fork = { id: flags.resume }
  }
  return {
    cwd,
    model: claude.model,
    effort: claude.effort,
    resume: claude.forkSession ? undefined : flags.resume,
    continueLatest: flags.continue,
    fork,
    maxSteps: flags.maxTurns,
    ...(flags.userId !== undefined ? { userId: checkedUserIdFlag(flags.userId) } : {}),
    ...(flags.maxBudgetUsd !== undefined || flags.maxBudgetTokens !== undefined
      ? { budget: { ...(flags.maxBudgetUsd !== undefined ? { usd: flags.maxBudgetUsd } : {}), ...(flags.maxBudgetTokens !== undefined ? { tokens: flags.maxBudgetTokens } : {}) } }
      : {}),
    permissionMode: claude.permissionMode ?? flags.permissionMode,
    allow: [...(flags.allow ?? []), ...claude.allow],
    ...(claude.mcpServers.length ? { mcpServers: claude.mcpServers } : {}),
    ...(claude.settingsOverlay ? { settingsOverlay: claude.settingsOverlay } : {}),
    ...(claude.systemPrompt ? { systemPrompt: claude.systemPrompt } : {}),
    ...(claude.builtinTools ? { builtinTools: claude.builtinTools } : {}),
    ...(claude.pluginDirs.length ? { pluginDirs: claude.pluginDirs } : {}),
    ...(claude.agents ? { agentTypes: claude.agents } : {}),
    ...claude.open,
    trustProject: flags.trustProject || flags.trustProjectHooks,
    approvePlan: flags.approvePlan,
    ...(flags.sandbox !== undefined ? { sandbox: flags.sandbox } : {}),
    ...(flags.store !== undefined ? { store: flags.store } : {}),
    ...(flags.sessionId !== undefined ? { sessionId: sessionIdFlag(flags.sessionId, picked) } : {}),
  }
}

/** `--session-id`: a new session's id; it cannot be combined with a flag that opens an existing session. */
function sessionIdFlag(id: string, opensExisting: number): string {
  if (opensExisting) throw new UsageError('--session-id names a new session; it cannot be used with --resume, --continue or --fork.')
  if (!/^[A-Za-z0-9][A-Za-z0-9-]{0,127}$/.test(id)) throw new UsageError(`--session-id ${JSON.stringify(id.slice(0, 40))}: an id holds only letters, digits and dashes.`)
  return id
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

/** Loads the terminal UI out of sight of `CI` (see `withoutCiEnv`). */
function importTuiOutsideCi(): Promise<typeof import('../tui/index.js')> {
  return withoutCiEnv(() => import('../tui/index.js'))
}

function checkedUserIdFlag(value: string): string {
  if (isValidUserId(value)) return value
  throw new UsageError(`--user-id must be 1 to 512 letters, digits, "_" or "-" (DeepSeek's user_id); got ${JSON.stringify(String(value).slice(0, 80))}.`)
}
