import { existsSync } from 'node:fs'
import type { Command } from 'commander'
import { inventory, presentCommits, shadowRepositories, type WorkspaceCheckpoints } from '../../checkpoints/inventory.js'
import { shadowRepository } from '../../checkpoints/retention-schedule.js'
import { CheckpointRepositoryError, pruneRepository, workspaceOf, type PruneReport } from '../../checkpoints/retention.js'
import { checkpointConfig } from '../../checkpoints/settings.js'
import { checkpointSteps } from '../../checkpoints/steps.js'
import { loadSettings } from '../../config/settings.js'
import { readSessionLog } from '../../session/load.js'
import { openStore } from '../../runtime/open-store.js'
import { reinHome } from '../../store/home.js'
import { resolveSessionId } from '../../store/listing.js'
import { workspaceTrust } from '../../runtime/workspace-trust.js'
import { renderInventory, renderPrune, renderSteps } from '../checkpoints/render.js'
import { oneLineErrors } from './one-line-errors.js'

const STORE_HELP = 'session store: jsonl (default) or postgres://user@host/db (also REIN_STORE, store.url)'

/**
 * `rein checkpoints list [session]` and `rein checkpoints prune` (docs/checkpoints.md). Listing a session reads its
 * log (which steps took a snapshot and what they changed) and asks the shadow repository only which snapshots it
 * still holds. Listing with no session reads every shadow repository under `$REIN_HOME/checkpoints`. Pruning applies
 * the `checkpoints` retention settings of each workspace. A repository that is gone or damaged is named in one
 * sentence, the exit code is 1, and nothing else is changed.
 */
export function registerCheckpointsCommand(program: Command): void {
  const checkpoints = program.command('checkpoints').description('List and prune the workspace snapshots checkpoints keep.')

  checkpoints
    .command('list [session]')
    .description('List the steps of a session that took a snapshot, with what each changed; with no session, every workspace.')
    .option('--json', 'print JSON')
    .option('--store <url>', STORE_HELP)
    .action(
      oneLineErrors(async (prefix: string | undefined, flags: { json?: boolean; store?: string }) => {
        if (prefix === undefined) return listWorkspaces(flags.json === true)
        const store = await openStore({ home: reinHome(), flag: flags.store })
        const id = await resolveSessionId(store, prefix, process.cwd())
        const log = await readSessionLog(store, id)
        const steps = checkpointSteps(log.events)
        const commits = steps.flatMap((s) => (s.commit ? [s.commit] : []))
        const present = commits.length ? await presentCommits({ gitDir: shadowRepository(reinHome(), log.header.cwd) }, commits) : new Set<string>()
        if (flags.json) {
          const rows = steps.map((s) => ({ ...s, ...(s.commit ? { available: present.has(s.commit) } : {}) }))
          process.stdout.write(`${JSON.stringify({ session: id, cwd: log.header.cwd, steps: rows }, null, 2)}\n`)
        } else {
          process.stdout.write(renderSteps(id, steps, present))
        }
      }),
    )

  checkpoints
    .command('prune')
    .description("Remove the snapshots retention no longer keeps (settings checkpoints.keepSessions and keepDays) and free their space.")
    .option('--all-workspaces', 'prune every workspace under $REIN_HOME/checkpoints, not only this one')
    .option('--dry-run', 'say what would be removed; change nothing')
    .option('--json', 'print JSON')
    .action(
      oneLineErrors(async (flags: { allWorkspaces?: boolean; dryRun?: boolean; json?: boolean }) => {
        const home = reinHome()
        const cwd = process.cwd()
        const targets = flags.allWorkspaces ? shadowRepositories(home) : [shadowRepository(home, cwd)]
        if (!flags.allWorkspaces && !existsSync(targets[0])) {
          process.stdout.write(flags.json ? '[]\n' : `No checkpoints for ${cwd}; nothing to prune.\n`)
          return
        }
        const reports: PruneReport[] = []
        let failed = false
        for (const gitDir of targets) {
          try {
            // Each workspace is judged by its own settings; a repository that does not name its workspace by the user's.
            const workspace = flags.allWorkspaces ? workspaceOf(gitDir) : cwd
            const dir = workspace && existsSync(workspace) ? workspace : gitDir
            const rules = checkpointConfig(loadSettings(dir, home, { workspaceTrusted: workspaceTrust({ cwd: dir, home }).trusted }))
            const report = await pruneRepository({ gitDir, rules, now: Date.now(), dryRun: flags.dryRun, gc: 'wait' })
            reports.push(report)
            if (!flags.json) process.stdout.write(renderPrune(report, flags.dryRun === true))
          } catch (error) {
            if (!(error instanceof CheckpointRepositoryError) || !flags.allWorkspaces) throw error
            // One damaged repository does not stop the others; it is named and the exit code says so.
            process.stderr.write(`rein: ${error.message}\n`)
            failed = true
          }
        }
        if (flags.json) process.stdout.write(`${JSON.stringify(reports.map(pruneJson), null, 2)}\n`)
        if (!targets.length && !flags.json) process.stdout.write('No checkpoints yet; nothing to prune.\n')
        if (failed) process.exitCode = 1
      }),
    )
}

async function listWorkspaces(json: boolean): Promise<void> {
  const rows: WorkspaceCheckpoints[] = []
  let failed = false
  for (const gitDir of shadowRepositories(reinHome())) {
    try {
      rows.push(await inventory({ gitDir }))
    } catch (error) {
      if (!(error instanceof CheckpointRepositoryError)) throw error
      process.stderr.write(`rein: ${error.message}\n`)
      failed = true
    }
  }
  process.stdout.write(json ? `${JSON.stringify(rows, null, 2)}\n` : renderInventory(rows))
  if (failed) process.exitCode = 1
}

function pruneJson(report: PruneReport) {
  const unit = (r: { session: string | null; commit: string; time: number }) => ({ session: r.session, commit: r.commit, newest: new Date(r.time).toISOString() })
  return {
    workspace: report.workspace ?? null,
    repository: report.gitDir,
    removed: report.removed.map(unit),
    kept: report.kept.map(unit),
    bytesBefore: report.bytesBefore,
    ...(report.bytesAfter !== undefined ? { bytesAfter: report.bytesAfter, bytesFreed: Math.max(0, report.bytesBefore - report.bytesAfter) } : {}),
  }
}
