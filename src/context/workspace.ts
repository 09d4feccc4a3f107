import { homedir } from 'node:os'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import type { EnteringMessage, Extension, ExtensionContext } from '../agent/extensions.js'
import { loadingRefusal } from '../config/read-guard.js'
import { skippedNotice, type Refusal } from '../fs/read-gate.js'
import type { Source } from '../session/events.js'
import {
  directoriesBelow,
  directoryInstructionPaths,
  fitBudget,
  projectRoot,
  readInstructionFiles,
  workspaceInstructionPaths,
  type InstructionFile,
} from './instruction-files.js'
import { ProducedIndex } from './produced-messages.js'
import { directoryBlock, updateBlock, workspaceBlock } from './workspace-text.js'
import { isAccounted, knownFiles, type FileRecord, type WorkspaceMeta } from './workspace-state.js'

/** The `source.kind` of every message this producer writes. */
export const WORKSPACE_CONTEXT = 'workspace-context'

/** Default budget for the instruction text of one message: 64 KiB. */
export const DEFAULT_INSTRUCTION_BUDGET = 64 * 1024

type ContextEntry = { content: [{ type: 'text'; text: string }]; source: Source; meta: WorkspaceMeta }

/**
 * The workspace-context producer: tells the model the instruction files (AGENTS.md, CLAUDE.md and their `.local.md`
 * variants) of the user, the project and the directories it works in, each message one complete
 * `<system-reminder>` block whose `meta` records every file's path and digest.
 *
 * It remembers nothing between steps but what it finds on the session surface (see `producedMessages`):
 * - no message of its own on the surface (first step, or compaction shadowed them all) → the complete set, entering
 *   right after the step's prompt;
 * - otherwise → only what differs from its records: changed files, files that appeared, deletions;
 * - after a read, write or edit below the working directory → the instructions of each directory on the way there
 *   that it has not told yet, injected before the next request.
 * Resume needs no special case: the first step after it compares the surviving records with the disk.
 * Every file passes the read gate (`readInstructionFile`); one the gate refuses is left out as if absent, and the
 * user is told once per file and reason, in a warning notice.
 */
export function workspaceInstructions(options: {
  home: string
  budgetBytes?: number
  /**
   * The agent's read guard (`ReadGuard.refusesLoading`); without one (a subagent's producer, tests), the guard the
   * settings files define for the working directory.
   */
  refuses?: Refusal
}): Extension {
  const budgetBytes = options.budgetBytes ?? DEFAULT_INSTRUCTION_BUDGET
  const home = resolve(options.home)
  const userWidePath = join(home, 'AGENTS.md')
  const guards = new Map<string, Refusal>()
  const refusesIn = (cwd: string): Refusal => {
    if (options.refuses) return options.refuses
    let guard = guards.get(cwd)
    if (!guard) {
      guard = loadingRefusal(undefined, { cwd, reinHome: home, userHome: process.env.HOME ?? homedir() })
      guards.set(cwd, guard)
    }
    return guard
  }
  const told = new Set<string>()
  // The gate's verdict on each path; a refused file is told once and then treated as not there.
  const read: ReadFiles = (paths, agent) => {
    const { files, skipped } = readInstructionFiles(paths, { home, root: projectRoot(agent.cwd), refuses: refusesIn(agent.cwd) })
    for (const file of skipped) {
      const notice = skippedNotice('instruction file', file.path, file.reason)
      if (told.has(notice)) continue
      told.add(notice)
      agent.notify('warning', notice)
    }
    return files
  }
  // Records of directory instructions handed to the agent by postTool that may not be on the surface yet (a second
  // read in the same directory within one step must not inject them twice). Cleared once a step starts, when they
  // are on the surface or entering.
  let pending: FileRecord[] = []
  const produced = new ProducedIndex(WORKSPACE_CONTEXT)

  return {
    name: WORKSPACE_CONTEXT,
    event: (event, agent) => produced.observe(event, agent),

    async preStep(_step, entering, agent) {
      const mine = produced.messages(agent, entering)
      const known = knownFiles(mine, pending)
      pending = []
      const basePaths = workspaceInstructionPaths({ home, cwd: agent.cwd })
      const entry =
        mine.length === 0
          ? completeSet(read(basePaths, agent), known, budgetBytes, userWidePath)
          : changesSince(basePaths, (paths) => read(paths, agent), known, budgetBytes)
      if (!entry) return
      const message: EnteringMessage = { type: 'context/message', ...entry }
      return { action: 'enter', messages: [...entering, message] }
    },

    async postTool(call, _result, agent) {
      // A tool that names one file (read, write, edit: the tool declares it) reveals a directory the model works in.
      const filePath = call.tool?.target?.kind === 'file' ? filePathOf(call.input, call.tool.target.argument) : null
      if (!filePath) return
      const target = isAbsolute(filePath) ? filePath : resolve(agent.cwd, filePath)
      const dirs = directoriesBelow(agent.cwd, dirname(target))
      if (dirs.length === 0) return
      const known = knownFiles(produced.messages(agent), pending)
      const context: ContextEntry[] = []
      for (const dir of dirs) {
        const files = read(directoryInstructionPaths(dir), agent)
        const fresh = files.filter((f) => !isAccounted(known.get(f.path)))
        if (fresh.length === 0) continue
        const selection = select(fresh, shownDigests(known), budgetBytes)
        for (const record of selection.records) known.set(record.path, record)
        pending.push(...selection.records)
        if (selection.shown.length === 0 && selection.dropped.length === 0) continue
        const text = directoryBlock({ dir, files: selection.shown, dropped: selection.dropped, budgetBytes })
        context.push(entryOf(text, { block: 'directory', dir, files: selection.records }))
      }
      return context.length > 0 ? { context } : undefined
    },
  }
}

type ReadFiles = (paths: readonly string[], agent: ExtensionContext) => InstructionFile[]

/** The complete set of user and project instructions (`files`, as read), or null when there are none. */
function completeSet(
  files: readonly InstructionFile[],
  known: ReadonlyMap<string, FileRecord>,
  budgetBytes: number,
  userWidePath: string,
): ContextEntry | null {
  const selection = select(files, shownDigests(known), budgetBytes)
  if (selection.shown.length === 0 && selection.dropped.length === 0) return null
  const text = workspaceBlock({ files: selection.shown, dropped: selection.dropped, budgetBytes, userWidePath })
  return entryOf(text, { block: 'workspace', files: selection.records })
}

/**
 * What changed since the producer's records: every recorded file (user, project and directory ones) and every
 * project path, compared by digest with the disk. Null when nothing changed.
 */
function changesSince(
  basePaths: readonly string[],
  read: (paths: readonly string[]) => InstructionFile[],
  known: ReadonlyMap<string, FileRecord>,
  budgetBytes: number,
): ContextEntry | null {
  const paths = [...new Set([...basePaths, ...known.keys()])]
  const onDisk = new Map(read(paths).map((f) => [f.path, f]))
  const changed: InstructionFile[] = []
  const added = new Set<string>()
  const removed: string[] = []
  for (const path of paths) {
    const record = known.get(path)
    const file = onDisk.get(path)
    if (!file) {
      if (isAccounted(record)) removed.push(path)
    } else if (!isAccounted(record)) {
      changed.push(file)
      added.add(path)
    } else if (record.sha256 !== file.sha256) changed.push(file)
  }
  const stillShown = new Map(known)
  for (const file of changed) stillShown.delete(file.path)
  for (const path of removed) stillShown.delete(path)
  // A file recorded as a duplicate was shown only through its twin; when the twin changed or went, show it itself.
  const visible = shownDigests(stillShown)
  for (const path of paths) {
    const record = known.get(path)
    const file = onDisk.get(path)
    if (record?.status === 'duplicate' && file?.sha256 === record.sha256 && !visible.has(record.sha256)) {
      stillShown.delete(path)
      changed.push(file)
      added.add(path)
    }
  }
  if (changed.length === 0 && removed.length === 0) return null
  changed.sort((a, b) => paths.indexOf(a.path) - paths.indexOf(b.path))
  const selection = select(changed, shownDigests(stillShown), budgetBytes)
  const records: FileRecord[] = [
    ...selection.records,
    ...removed.map((path): FileRecord => ({ path, sha256: null, status: 'removed' })),
  ]
  if (selection.shown.length === 0 && selection.dropped.length === 0 && removed.length === 0) {
    return null
  }
  const text = updateBlock({
    updated: selection.shown.filter((f) => !added.has(f.path)),
    added: selection.shown.filter((f) => added.has(f.path)),
    removed,
    dropped: selection.dropped,
    budgetBytes,
  })
  return entryOf(text, { block: 'update', files: records })
}

/**
 * Chooses what to show of `files` (broadest first): a file whose bytes equal a file already shown (or shown earlier
 * in this list) is recorded as a duplicate and not repeated; the rest go through the budget. `records` lists every
 * input file with its status, in input order.
 */
function select(
  files: readonly InstructionFile[],
  alreadyShown: ReadonlySet<string>,
  budgetBytes: number,
): { shown: InstructionFile[]; dropped: InstructionFile[]; records: FileRecord[] } {
  const seen = new Set(alreadyShown)
  const distinct: InstructionFile[] = []
  const duplicates = new Set<InstructionFile>()
  for (const file of files) {
    if (seen.has(file.sha256)) duplicates.add(file)
    else {
      seen.add(file.sha256)
      distinct.push(file)
    }
  }
  const { kept, dropped } = fitBudget(distinct, budgetBytes)
  const droppedSet = new Set(dropped)
  const records = files.map(
    (f): FileRecord => ({
      path: f.path,
      sha256: f.sha256,
      status: duplicates.has(f) ? 'duplicate' : droppedSet.has(f) ? 'dropped' : 'shown',
    }),
  )
  return { shown: kept, dropped, records }
}

/** Digests of the files whose content the model currently has from this producer. */
function shownDigests(known: ReadonlyMap<string, FileRecord>): Set<string> {
  const out = new Set<string>()
  for (const record of known.values()) if (record.status === 'shown' && record.sha256) out.add(record.sha256)
  return out
}

function entryOf(text: string, meta: WorkspaceMeta): ContextEntry {
  return { content: [{ type: 'text', text }], source: { kind: WORKSPACE_CONTEXT }, meta }
}

function filePathOf(input: unknown, argument: string): string | null {
  if (!input || typeof input !== 'object') return null
  const value = (input as Record<string, unknown>)[argument]
  return typeof value === 'string' && value.length > 0 ? value : null
}
