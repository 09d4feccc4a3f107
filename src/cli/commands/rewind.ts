import type { Command } from 'commander'
import { createInterface } from 'node:readline/promises'
import type { CommandResult } from '../../agent/extensions.js'
import type { PermissionAnswer, PermissionRequest } from '../../agent/types.js'
import type { RewindOutcome, RewindRequest } from '../../checkpoints/rewind-types.js'
import { REWIND_COMMAND, UNDO_REWIND_COMMAND } from '../../checkpoints/rewind-types.js'
import { openAgentWithContext } from '../../runtime/open.js'
import { openStore } from '../../runtime/open-store.js'
import { readSessionLog } from '../../session/load.js'
import { reinHome } from '../../store/home.js'
import { resolveSessionId } from '../../store/listing.js'
import { fail, UsageError } from '../fail.js'

interface RewindFlags {
  to?: string
  code?: boolean
  conversation?: boolean
  overwrite?: boolean
  keepConflicts?: boolean
  dryRun?: boolean
  undo?: boolean
  json?: boolean
  store?: string
}

/**
 * `rein rewind <session> --to <turn>`: puts the workspace back as it was before that turn and continues the
 * conversation in a fork made at its start (docs/checkpoints.md, "Rewind"). Both by default; `--code` or
 * `--conversation` picks one. `--undo` undoes the session's latest code rewind.
 */
export function registerRewindCommand(program: Command): void {
  program
    .command('rewind <session>')
    .description('go back to the start of a turn: its files (--code), its conversation (--conversation), or both')
    .option('--to <turn>', 'the turn to go back to (the turn numbers `rein sessions show` prints)')
    .option('--code', 'restore the files only')
    .option('--conversation', 'fork the conversation only')
    .option('--overwrite', 'overwrite files changed since Rein last wrote them, without asking')
    .option('--keep-conflicts', 'leave files changed since Rein last wrote them as they are, without asking')
    .option('--dry-run', 'show what would change and the conflicts; change nothing')
    .option('--undo', "undo the session's latest rewind of the code")
    .option('--json', 'print the outcome as one JSON object')
    .option('--store <url>', 'session store: jsonl (default) or postgres://…')
    .action(async (session: string, flags: RewindFlags) => {
      try {
        process.exitCode = await rewind(session, flags)
      } catch (error) {
        fail(error)
      }
    })
}

async function rewind(sessionArg: string, flags: RewindFlags): Promise<number> {
  const request = requestOf(flags)
  const env = process.env
  const home = reinHome(env)
  const store = await openStore({ home, env, flag: flags.store })
  const id = await resolveSessionId(store, sessionArg, process.cwd())
  // The rewind runs in the session's own workspace, wherever it is typed.
  const { header } = await readSessionLog(store, id)
  const { agent } = await openAgentWithContext({ cwd: header.cwd, home, env, resume: id, ...(flags.store !== undefined ? { store: flags.store } : {}) })
  let result: CommandResult
  try {
    if (request.conflicts === 'ask' && process.stdin.isTTY && !flags.json) agent.permissionAsker = askInTerminal
    result = flags.undo
      ? await agent.runCommand(UNDO_REWIND_COMMAND, { args: { conflicts: request.conflicts ?? 'ask', dryRun: request.dryRun === true } })
      : await agent.runCommand(REWIND_COMMAND, { args: { ...request } })
  } finally {
    await agent.close()
  }
  const outcome = result.data as RewindOutcome | undefined
  if (flags.json) process.stdout.write(`${JSON.stringify({ outcome: result.outcome, message: result.message, ...(outcome ?? {}) })}\n`)
  // Nothing done (no snapshot to restore, nothing to undo) is a failure for a command asked to do something.
  const failed = result.outcome === 'cancelled' || result.outcome === 'nothing'
  if (!flags.json && !failed) process.stdout.write(report(result, outcome))
  if (!failed) return 0
  if (!flags.json) process.stderr.write(`rein: ${result.message}\n`)
  return 1
}

/** The request the flags describe, checked before anything is opened. */
function requestOf(flags: RewindFlags): RewindRequest {
  if (flags.overwrite && flags.keepConflicts) throw new UsageError('Use only one of --overwrite and --keep-conflicts.')
  const conflicts = flags.overwrite ? 'overwrite' : flags.keepConflicts ? 'keep' : 'ask'
  if (flags.undo) {
    if (flags.to !== undefined || flags.code || flags.conversation) throw new UsageError('--undo takes no --to, --code or --conversation: it undoes the latest rewind of the code.')
    return { turn: 1, conflicts, dryRun: flags.dryRun }
  }
  if (flags.to === undefined) throw new UsageError('Say which turn to go back to with --to <turn> (`rein sessions show <session>` lists the turns).')
  const turn = /^\d+$/.test(flags.to.trim()) ? Number(flags.to.trim()) : NaN
  if (!Number.isSafeInteger(turn) || turn < 1) throw new UsageError(`--to ${JSON.stringify(flags.to.slice(0, 40))}: a turn is a whole number of at least 1.`)
  const both = !flags.code && !flags.conversation
  return { turn, code: both || flags.code === true, conversation: both || flags.conversation === true, conflicts, dryRun: flags.dryRun }
}

/** What a person reads: the outcome sentence, the paths, the conflicts, and how to go on in the fork. */
function report(result: CommandResult, outcome: RewindOutcome | undefined): string {
  const lines = [result.message]
  const code = outcome?.code
  if (code?.changes.length) {
    const verb = { modified: 'put back', added: 'removed', deleted: 'brought back' } as const
    for (const change of code.changes) lines.push(`  ${verb[change.kind].padEnd(12)} ${change.path}`)
  }
  if (code?.conflicts.length) lines.push(`Changed since Rein last wrote them: ${code.conflicts.join(', ')}`)
  if (outcome?.fork) lines.push(`Continue the conversation with: rein --resume ${outcome.fork.id}`)
  return `${lines.join('\n')}\n`
}

/** The y/n question about conflicting files, in the terminal: yes overwrites them, anything else keeps them. */
async function askInTerminal(request: PermissionRequest): Promise<PermissionAnswer> {
  const rl = createInterface({ input: process.stdin, output: process.stderr })
  try {
    const answer = await rl.question(`${request.reason}\nOverwrite them? [y/N] `)
    return /^y(es)?$/i.test(answer.trim()) ? { outcome: 'allow-once' } : { outcome: 'deny' }
  } finally {
    rl.close()
  }
}
