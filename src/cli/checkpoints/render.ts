import type { CheckpointStep } from '../../checkpoints/steps.js'
import type { WorkspaceCheckpoints } from '../../checkpoints/inventory.js'
import type { PruneReport, SnapshotRef } from '../../checkpoints/retention.js'
import { counted } from '../../text/count.js'

/** Bytes as a person reads them: 512 B, 3.4 KiB, 12.0 MiB, 1.2 GiB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  const units = ['KiB', 'MiB', 'GiB', 'TiB']
  let value = bytes / 1024
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${value.toFixed(1)} ${units[unit]}`
}

/** A time as `YYYY-MM-DD HH:MM` in UTC (the listing is read on any machine). */
function formatTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace('T', ' ')
}

/**
 * The steps of one session that took a snapshot: a heading line per step (turn, step, short commit, file count, or
 * why there is no snapshot), then one line per changed path and per skipped path.
 */
export function renderSteps(sessionId: string, steps: readonly CheckpointStep[], present: ReadonlySet<string>): string {
  if (!steps.length) return `Session ${sessionId} has no checkpoints: none of its steps changed the workspace.\n`
  const lines: string[] = []
  for (const step of steps) {
    const where = `turn ${step.turn} step ${step.step}`
    if (!step.commit) {
      lines.push(`${where}  no snapshot: ${step.error ?? 'unknown reason'}`)
    } else {
      const gone = present.has(step.commit) ? '' : ' (pruned: cannot be restored)'
      lines.push(`${where}  ${step.commit.slice(0, 8)}  ${counted(step.files ?? 0, 'file')}${gone}`)
    }
    for (const change of step.changes) lines.push(`  ${change.kind.padEnd(8)} ${change.path}`)
    for (const skip of step.skipped) {
      const why = skip.reason === 'too-large' ? `over the size limit, ${formatBytes(skip.bytes ?? 0)}` : 'a nested git repository'
      lines.push(`  skipped  ${skip.path} (${why})`)
    }
  }
  return `${lines.join('\n')}\n`
}

/** A short table of every workspace's checkpoints: sessions, snapshots, disk use, newest snapshot. */
export function renderInventory(rows: readonly WorkspaceCheckpoints[]): string {
  if (!rows.length) return 'No checkpoints yet.\n'
  const table = [
    ['WORKSPACE', 'SESSIONS', 'SNAPSHOTS', 'DISK', 'NEWEST'],
    ...rows.map((row) => [
      row.workspace ?? `(unnamed) ${row.gitDir}`,
      String(row.sessions),
      String(row.snapshots),
      formatBytes(row.bytes),
      row.newest !== undefined ? formatTime(row.newest) : '-',
    ]),
  ]
  const widths = table[0].map((_, column) => Math.max(...table.map((line) => line[column].length)))
  return table.map((line) => line.map((cell, column) => (column === line.length - 1 ? cell : cell.padEnd(widths[column]))).join('  ')).join('\n') + '\n'
}

function unitName(ref: SnapshotRef): string {
  return ref.session === null ? 'the snapshots from before per-session refs' : ref.session.slice(0, 8)
}

/** One line per repository: what a prune removed (or would remove), what it kept, and the bytes it freed. */
export function renderPrune(report: PruneReport, dryRun: boolean): string {
  const where = report.workspace ?? report.gitDir
  const kept = `${counted(report.kept.length, 'session')} kept`
  if (!report.removed.length) return `${where}: nothing to prune (${kept}).\n`
  const names = report.removed.map(unitName).join(', ')
  const units = counted(report.removed.length, 'session')
  if (dryRun) return `${where}: would remove the snapshots of ${units} (${names}); ${kept}.\n`
  const freed = report.bytesAfter !== undefined ? `; freed ${formatBytes(Math.max(0, report.bytesBefore - report.bytesAfter))}` : ''
  return `${where}: removed the snapshots of ${units} (${names}); ${kept}${freed}.\n`
}
