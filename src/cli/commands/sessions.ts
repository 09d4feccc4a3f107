import { Command, InvalidArgumentError, Option } from 'commander'
import type { SessionEvent, SessionHeader } from '../../session/events.js'
import { forkSession } from '../../session/fork.js'
import { readSessionLog } from '../../session/load.js'
import { sidecarProblems } from '../../session/sidecar-verify.js'
import { isDamage, verifySession, type VerifyCheck } from '../../session/verify.js'
import { counted } from '../../text/count.js'
import { reinHome } from '../../store/home.js'
import { listSessions, resolveSessionId } from '../../store/listing.js'
import { openStore } from '../../runtime/open-store.js'
import type { SessionStore } from '../../store/store.js'
import { importSession } from '../sessions/import.js'
import { renderMarkdown, renderTranscript } from '../../frontend/session-transcript.js'
import { renderSessionTable } from '../sessions/table.js'
import { oneLineErrors } from './one-line-errors.js'

export interface SessionsCommandOptions {
  /** Checks `verify` runs after the structural ones (the CLI adds request re-derivation, src/frontend/session-requests.ts). */
  verifyChecks?: readonly VerifyCheck[]
  /** `show --requests`: renders the re-derived requests (the agent's request builder owns how). */
  renderRequests?: (
    header: SessionHeader,
    events: readonly SessionEvent[],
    options: { step?: { turn: number; step: number }; json: boolean },
  ) => string
}

/**
 * `rein sessions list|show|export|fork|verify|import`. Sessions come from the chosen store (`--store`, REIN_STORE,
 * `store.url`, else the JSONL store under `reinHome()`); ids may be
 * abbreviated to a unique prefix. These commands only read a session (fork writes a new one): they never repair,
 * so they are safe on a session another process is running.
 */
export function registerSessionsCommand(program: Command, options: SessionsCommandOptions = {}): void {
  const sessions = program.command('sessions').description('List, show, export, fork and verify session logs.')

  sessions
    .command('list')
    .option('--store <url>', STORE_HELP)
    .description('List the sessions of this directory, newest first.')
    .option('--all', 'list the sessions of every directory')
    .action(
      oneLineErrors(async (flags: { all?: boolean; store?: string }) => {
        const cwd = process.cwd()
        const found = await listSessions(await store(flags), flags.all ? 'all' : cwd)
        if (!found.length) {
          process.stdout.write(flags.all ? 'No sessions yet.\n' : `No sessions in ${cwd} yet; \`rein sessions list --all\` lists every directory.\n`)
          return
        }
        process.stdout.write(renderSessionTable(found, flags.all === true))
      }),
    )

  sessions
    .command('show <id>')
    .option('--store <url>', STORE_HELP)
    .description('Print a readable transcript of a session.')
    .option('--requests', 'print the exact request of every step, re-derived from the log, with where each message came from')
    .option('--step <turn.step>', 'with --requests: only the request of this step, e.g. 2.3', parseStep)
    .option('--json', 'with --requests: the exact request bodies, one JSON line each')
    .action(
      oneLineErrors(async (id: string, flags: { requests?: boolean; step?: { turn: number; step: number }; json?: boolean; store?: string }) => {
        const log = await readLog(id, flags)
        if (flags.requests && options.renderRequests) {
          await write(options.renderRequests(log.header, log.events, { step: flags.step, json: flags.json === true }))
        } else {
          await write(renderTranscript(log.header, log.events))
        }
      }),
    )

  sessions
    .command('export <id>')
    .option('--store <url>', STORE_HELP)
    .description('Write a session to standard output as JSONL, JSON or Markdown.')
    .addOption(new Option('--format <format>', 'output format').choices(['jsonl', 'json', 'md']).default('jsonl'))
    .action(
      oneLineErrors(async (id: string, flags: { format: 'jsonl' | 'json' | 'md'; store?: string }) => {
        const log = await readLog(id, flags)
        if (flags.format === 'md') await write(renderMarkdown(log.header, log.events))
        else if (flags.format === 'json') await writeJson(log.header, log.events)
        else await writeJsonl(log.header, log.events)
      }),
    )

  sessions
    .command('fork <id>')
    .option('--store <url>', STORE_HELP)
    .description('Start a new session from a copy of a session up to a seq (default: its last finished turn); prints the new id.')
    .option('--at <seq>', 'the last seq to copy (not inside a turn)', parseSeq)
    .action(
      oneLineErrors(async (id: string, flags: { at?: number; store?: string }) => {
        const fullId = await resolveSessionId(await store(flags), id, process.cwd())
        const fork = await forkSession(await store(flags), fullId, flags.at)
        await fork.close()
        process.stdout.write(`${fork.id}\n`)
      }),
    )

  sessions
    .command('verify <id>')
    .option('--store <url>', STORE_HELP)
    .description("Check a session log's structure and surface rules; exits 1 only for damage (a crash's open turn is a note).")
    .action(
      oneLineErrors(async (id: string, flags: { store?: string }) => {
        const log = await readLog(id, flags)
        const problems = await verifySession(log, options.verifyChecks ?? [])
        if (log.end.torn) {
          process.stdout.write(`note: line ${log.end.torn.line} is torn; it is dropped when the session is next opened.\n`)
        }
        for (const problem of problems) {
          const where = problem.seq < 0 ? 'header' : `seq ${problem.seq}`
          process.stdout.write(`${isDamage(problem) ? '' : 'note: '}${where}: ${problem.message}\n`)
        }
        const sidecar = await sidecarProblems(await store(), log)
        for (const problem of sidecar) process.stdout.write(`${problem.severity === 'note' ? 'note: ' : ''}sidecar: ${problem.message}.\n`)
        const damage = problems.filter(isDamage).length + sidecar.filter((p) => p.severity === 'damage').length
        const notes = problems.length - problems.filter(isDamage).length
        if (damage) {
          process.stderr.write(`rein: session ${log.header.id} has ${counted(damage, 'problem')}.\n`)
          process.exitCode = 1
        } else {
          const noted = notes ? ` (${counted(notes, 'note')}: it ends mid-turn; \`rein --resume\` closes it)` : ''
          process.stdout.write(`session ${log.header.id}: ${counted(log.events.length, 'event')}, no problems${noted}.\n`)
        }
      }),
    )

  sessions
    .command('import <files...>')
    .description('Add sessions exported as JSONL (a file, or - for standard input) to the store, keeping their ids.')
    .option('--store <url>', STORE_HELP)
    .action(
      oneLineErrors(async (files: string[], flags: { store?: string }) => {
        const target = await store(flags)
        for (const file of files) {
          const imported = await importSession(target, file === '-' ? { path: 'standard input', input: process.stdin } : { path: file })
          const torn = imported.tornLine ? ` (its torn line ${imported.tornLine} was dropped)` : ''
          process.stdout.write(`imported session ${imported.id}: ${counted(imported.events, 'event')}${torn}.\n`)
        }
      }),
    )
}

function parseStep(value: string): { turn: number; step: number } {
  const match = /^(\d+)\.(\d+)$/.exec(value)
  if (!match) throw new InvalidArgumentError('expected <turn>.<step>, e.g. 2.3.')
  return { turn: Number(match[1]), step: Number(match[2]) }
}

const STORE_HELP = 'session store: jsonl (default) or postgres://user@host/db (also REIN_STORE, store.url)'

/** The store a sessions command reads: --store, REIN_STORE, store.url, else the JSONL store (see open-store.ts). */
let shared: Promise<SessionStore> | undefined
function store(flags: { store?: string } = {}): Promise<SessionStore> {
  shared ??= openStore({ home: reinHome(), flag: flags.store })
  return shared
}

async function readLog(prefix: string, flags: { store?: string }): Promise<Awaited<ReturnType<typeof readSessionLog>>> {
  const id = await resolveSessionId(await store(flags), prefix, process.cwd())
  return readSessionLog(await store(flags), id)
}

function parseSeq(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('a seq is a whole number from `rein sessions show`.')
  return Number(value)
}

/** Writes to stdout and waits until the stream takes more, so a large export never piles up in memory. */
function write(text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const ok = process.stdout.write(text, (error) => (error ? reject(error) : undefined))
    if (ok) resolve()
    else process.stdout.once('drain', resolve)
  })
}

/** Chunk size for exports: about a megabyte of text per write. */
const EXPORT_CHUNK = 1 << 20

async function writeJsonl(header: SessionHeader, events: readonly SessionEvent[]): Promise<void> {
  let chunk = `${JSON.stringify(header)}\n`
  for (const event of events) {
    chunk += `${JSON.stringify(event)}\n`
    if (chunk.length >= EXPORT_CHUNK) {
      await write(chunk)
      chunk = ''
    }
  }
  await write(chunk)
}

/** One JSON document `{"header":…,"events":[…]}`, one event per line so it stays readable and streamable. */
async function writeJson(header: SessionHeader, events: readonly SessionEvent[]): Promise<void> {
  let chunk = `{"header":${JSON.stringify(header)},"events":[`
  for (const event of events) {
    chunk += `${event.seq ? ',' : ''}\n${JSON.stringify(event)}`
    if (chunk.length >= EXPORT_CHUNK) {
      await write(chunk)
      chunk = ''
    }
  }
  await write(`${chunk}\n]}\n`)
}
