import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, writeSync } from 'node:fs'
import { join, relative } from 'node:path'
import { projectRoot, workspaceInstructionPaths } from '../../context/instruction-files.js'

/**
 * `# line` at the start of a prompt: the line joins the workspace instructions instead of going to the model as a
 * prompt. The files are the ones the workspace-instructions producer reads (src/context/instruction-files.ts:
 * `$REIN_HOME/AGENTS.md`, then AGENTS.md, CLAUDE.md and their `.local.md` from the project root down to the working
 * directory), so the model sees the change through that producer on its next request, like any edit of those files.
 *
 * Which file: the one instruction file that exists; the project's `AGENTS.md` (created) when none does; a picker
 * when more than one exists. The line is appended as a Markdown bullet. Written only to a regular file or a new one,
 * never through a symbolic link (a repository's AGENTS.md linking to ~/.bashrc must not receive the line).
 */
export interface InstructionTarget {
  path: string
  /** How the picker names it: `project · AGENTS.md`, `user · ~/.rein/AGENTS.md`. */
  label: string
  exists: boolean
}

/** The text of a `#` prompt, or undefined when the prompt is not one (`#` alone is one, empty). */
export function memoryLineOf(prompt: string): string | undefined {
  return prompt.startsWith('#') ? prompt.slice(1).trim() : undefined
}

function exists(path: string): boolean {
  try {
    lstatSync(path)
    return true
  } catch {
    // Not there (or not reachable): offered as absent.
    return false
  }
}

export function instructionTargets(home: string, cwd: string): InstructionTarget[] {
  const root = projectRoot(cwd)
  const user = join(home, 'AGENTS.md')
  const label = (path: string) => (path === user ? `user · ${path}` : `project · ${relative(root, path) || path}`)
  const found = workspaceInstructionPaths({ home, cwd })
    .filter(exists)
    .map((path) => ({ path, label: label(path), exists: true }))
    // The project's files first: the usual place for a line about this repository.
    .sort((a, b) => Number(a.path === user) - Number(b.path === user))
  if (found.some((t) => t.path !== user)) return found
  const fresh = join(root, 'AGENTS.md')
  return [...found, { path: fresh, label: `${label(fresh)} (new)`, exists: false }]
}

/** The targets to choose from: one means no question. Without any file, the project's new AGENTS.md alone. */
export function targetsToAsk(targets: readonly InstructionTarget[]): readonly InstructionTarget[] {
  const existing = targets.filter((t) => t.exists)
  return existing.length <= 1 ? [existing[0] ?? targets[0]] : existing
}

/** The bullet lines a `#` prompt adds (each non-empty line of it). */
export function bulletsOf(text: string): string {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => `- ${l}\n`)
    .join('')
}

/** Appends the bullets to `path`; throws with one sentence when the file is a link or not a regular file. */
export function appendInstruction(path: string, text: string): void {
  const flags = constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW
  let fd: number
  try {
    fd = openSync(path, flags, 0o644)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ELOOP') throw new Error(`${path} is a symbolic link; Rein adds instructions only to a regular file.`)
    throw new Error(`Could not open ${path}: ${(error as Error).message}.`)
  }
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile()) throw new Error(`${path} is not a regular file; Rein adds instructions only to a regular file.`)
    let lead = ''
    if (stat.size > 0) {
      const last = Buffer.alloc(1)
      readSync(fd, last, 0, 1, stat.size - 1)
      if (last[0] !== 0x0a) lead = '\n'
    }
    writeSync(fd, lead + bulletsOf(text))
  } finally {
    closeSync(fd)
  }
}

export interface MemoryLineHost {
  home: string
  cwd: string
  pick(title: string, choices: { label: string; value: string }[], onPick: (value: string) => void): void
  say(text: string, level?: 'info' | 'warning'): void
}

/** Runs a `#` prompt: appends its line to the chosen instructions file and says where, or why not. */
export function addMemoryLine(prompt: string, host: MemoryLineHost): void {
  const line = memoryLineOf(prompt)
  if (!line) return host.say('Type the instruction after #, for example # use tabs for indentation.', 'warning')
  const targets = targetsToAsk(instructionTargets(host.home, host.cwd))
  const write = (target: InstructionTarget) => {
    try {
      appendInstruction(target.path, line)
      host.say(`Added to ${target.label.replace(/ \(new\)$/, '')}; the model reads it from its next request.`)
    } catch (error) {
      host.say(error instanceof Error ? error.message : String(error), 'warning')
    }
  }
  if (targets.length === 1) return write(targets[0])
  host.pick(
    'Add the line to which instructions file?',
    targets.map((t) => ({ label: t.label, value: t.path })),
    (path) => {
      const target = targets.find((t) => t.path === path)
      if (target) write(target)
    },
  )
}
