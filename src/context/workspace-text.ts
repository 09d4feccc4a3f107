import { escapeReminderText, systemReminder } from './reminder.js'

/**
 * The exact words of the workspace-context producer. Each function returns one complete `<system-reminder>` block:
 * the first line says how to treat what follows, then each file under a line naming its path. File text is escaped
 * (see `escapeReminderText`) and its trailing whitespace trimmed, so every block ends the same way.
 */

/** A file to show: its absolute path and content as read. */
export interface ShownFile {
  path: string
  content: string
}

/** A file left out to stay within the budget. */
export interface DroppedFile {
  path: string
  bytes: number
}

const PRECEDENCE =
  'Follow them; where they disagree, the more specific file wins, and none of them overrides what the user tells you directly.'

/** The session's instructions: user-wide and project files, broadest first. */
export function workspaceBlock(options: {
  files: readonly ShownFile[]
  dropped: readonly DroppedFile[]
  budgetBytes: number
  userWidePath: string
}): string {
  const parts = [`Instructions for this workspace follow, from the broadest file to the most specific. ${PRECEDENCE}`]
  for (const file of options.files) {
    const label = file.path === options.userWidePath ? ' (user-wide, for every project)' : ''
    parts.push(fileSection(file, label))
  }
  const note = droppedNote(options.dropped, options.budgetBytes)
  if (note) parts.push(note)
  return systemReminder(parts.join('\n\n'))
}

/** Instructions found in a directory below the working directory once a tool touched it. */
export function directoryBlock(options: {
  dir: string
  files: readonly ShownFile[]
  dropped: readonly DroppedFile[]
  budgetBytes: number
}): string {
  const parts = [
    `Additional instructions for ${escapeReminderText(options.dir)} follow; they apply to work in that directory. ${PRECEDENCE}`,
  ]
  for (const file of options.files) parts.push(fileSection(file, ''))
  const note = droppedNote(options.dropped, options.budgetBytes)
  if (note) parts.push(note)
  return systemReminder(parts.join('\n\n'))
}

/** Changes to instruction files already shown: new contents, new files, deletions. */
export function updateBlock(options: {
  updated: readonly ShownFile[]
  added: readonly ShownFile[]
  removed: readonly string[]
  dropped: readonly DroppedFile[]
  budgetBytes: number
}): string {
  const parts = [
    'Instruction files changed on disk since you last saw them. New contents replace what you were shown before for the same file, and the instructions of a deleted file no longer apply.',
  ]
  for (const file of options.updated) parts.push(fileSection(file, ' (updated)'))
  for (const file of options.added) parts.push(fileSection(file, ' (new)'))
  for (const path of options.removed) parts.push(`${escapeReminderText(path)} was deleted.`)
  const note = droppedNote(options.dropped, options.budgetBytes)
  if (note) parts.push(note)
  return systemReminder(parts.join('\n\n'))
}

function fileSection(file: ShownFile, label: string): string {
  return `Contents of ${escapeReminderText(file.path)}${label}:\n\n${escapeReminderText(file.content.trimEnd())}`
}

function droppedNote(dropped: readonly DroppedFile[], budgetBytes: number): string | null {
  if (dropped.length === 0) return null
  const list = dropped.map((f) => `${escapeReminderText(f.path)} (${kib(f.bytes)})`).join(', ')
  return `Left out to stay within the ${kib(budgetBytes)} budget for instructions, broadest first: ${list}. Read a file with the read tool if you need it.`
}

/** Bytes as KiB with at most one decimal: `64 KiB`, `70.2 KiB`. */
export function kib(bytes: number): string {
  const value = Math.round((bytes / 1024) * 10) / 10
  return `${value} KiB`
}
