import { execFile } from 'node:child_process'
import { statSync } from 'node:fs'
import { readJudgedFile } from '../../fs/read-gate.js'
import { displayPath, resolveToolPath } from '../../tools/paths.js'
import { substituteArguments } from './arguments.js'
import type { CustomCommand } from './catalog.js'

/** How the permission policy judges a call the expansion would make (`read` for `@path`, `bash` for `` !`cmd` ``). */
export type Judge = (call: { name: 'read' | 'bash'; input: Record<string, string> }) => Promise<{ allowed: true } | { allowed: false; why: string }>

export interface ExpandOptions {
  cwd: string
  /** Whether `` !`cmd` `` may run at all: a trusted workspace, or a command from the user's own folders. */
  mayRun: boolean
  judge: Judge
  env: NodeJS.ProcessEnv
  signal?: AbortSignal
}

/** Bytes of one `@path` file a command may include; a larger file is refused (the model can still read it). */
export const INCLUDE_BYTE_CAP = 256 * 1024
/** Bytes of one `` !`cmd` `` output kept; the rest is cut with a note. */
export const COMMAND_OUTPUT_CAP = 30 * 1024
/** How long one `` !`cmd` `` may run. */
export const COMMAND_TIMEOUT_MS = 30_000

/**
 * The shell a command's body runs when expanded: an inline `` !`cmd` ``, or a fenced block opened by ```` ```! ```` on its
 * own line, whose lines run as one script. Group 1 keeps the newline before a fence, 2 is the block, 3 the inline line.
 */
const SHELL = /(^|\n)```![ \t]*\r?\n([\s\S]*?)\r?\n```[ \t]*(?=\r?\n|$)|!`([^`\n]+)`/g

/** Every shell line or block the body runs when expanded, in order, as it would run: what trust and the judge see. */
export function shellRuns(body: string): string[] {
  return [...body.matchAll(SHELL)].map((m) => (m[3] ?? m[2]).trim()).filter(Boolean)
}
const MENTION = /(^|\s)@((?:[^\s`"'<>()[\]{},;]|\\ )+)/g

/**
 * The prompt `/name args` stands for: the body with `$ARGUMENTS` and `$1`…`$9` filled, then every `` !`cmd` `` replaced
 * by what the command printed, then the contents of every `@path` that names a workspace file appended after the
 * text (the mention itself stays in place). Arguments are filled first, so `@$1` and `` !`git log $1` `` work; what
 * they produce is judged by the same rules as anything else. A refusal is one sentence, and nothing runs after it.
 */
export async function expandCommand(command: CustomCommand, args: string, options: ExpandOptions): Promise<{ text: string } | { error: string }> {
  let text = substituteArguments(command.body, args)

  const runs = [...text.matchAll(SHELL)]
  if (runs.length) {
    if (!options.mayRun) {
      return {
        error: `/${command.name} runs shell commands (!\`…\`), which workspace commands may do only in a trusted workspace; run rein trust, or start with --trust-project.`,
      }
    }
    const outputs: string[] = []
    for (const run of runs) {
      const line = (run[3] ?? run[2]).trim()
      const verdict = await options.judge({ name: 'bash', input: { command: line } })
      if (!verdict.allowed) return { error: `/${command.name} was not run: its command \`${line}\` ${verdict.why}.` }
      // A fenced block's output stands where the block stood, on its own lines.
      outputs.push(run[3] === undefined ? `${run[1]}${await runLine(line, options)}` : await runLine(line, options))
    }
    let i = 0
    text = text.replace(SHELL, () => outputs[i++])
  }

  const included: string[] = []
  const seen = new Set<string>()
  for (const mention of text.matchAll(MENTION)) {
    const named = mention[2].replace(/\\ /g, ' ').replace(/[.:!?]+$/, '')
    const absolute = resolveToolPath(options.cwd, named)
    if (seen.has(absolute)) continue
    let info
    try {
      info = statSync(absolute)
    } catch {
      // Not a file here: `@alice` or `@todo` is prose, and stays as written.
      continue
    }
    if (!info.isFile()) continue
    seen.add(absolute)
    const shown = displayPath(options.cwd, absolute)
    const verdict = await options.judge({ name: 'read', input: { file_path: absolute } })
    if (!verdict.allowed) return { error: `/${command.name} was not run: it includes @${named}, which ${verdict.why}.` }
    if (info.size > INCLUDE_BYTE_CAP) {
      return { error: `/${command.name} was not run: @${named} is ${info.size} bytes, more than the ${INCLUDE_BYTE_CAP} a command may include; name it without @ so the model reads it in parts.` }
    }
    // Read through the gate, so a file swapped for a pipe or a larger file since the check neither hangs nor floods.
    const read = readJudgedFile(absolute, INCLUDE_BYTE_CAP)
    if (read.kind !== 'read') return { error: `/${command.name} was not run: @${named} ${read.kind === 'absent' ? 'is gone' : read.reason.replace(/^it /, '')}.` }
    const bytes = read.bytes
    if (bytes.includes(0)) return { error: `/${command.name} was not run: @${named} is a binary file, which a command cannot include.` }
    included.push(fenced(shown, bytes.toString('utf8')))
  }
  return { text: included.length ? `${text.replace(/\s*$/, '')}\n\n${included.join('\n\n')}` : text }
}

/** A file's contents under a line naming it, in a fence longer than any backtick run inside. */
function fenced(shown: string, content: string): string {
  const longest = Math.max(2, ...[...content.matchAll(/`+/g)].map((m) => m[0].length))
  const fence = '`'.repeat(longest + 1)
  return `Contents of ${shown}:\n${fence}\n${content.replace(/\n$/, '')}\n${fence}`
}

/** Runs one line with bash in the workspace; stdout and stderr together, cut at the cap, with the exit code when not 0. */
function runLine(line: string, options: ExpandOptions): Promise<string> {
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-c', line],
      { cwd: options.cwd, env: options.env, timeout: COMMAND_TIMEOUT_MS, maxBuffer: 4 * COMMAND_OUTPUT_CAP, signal: options.signal, encoding: 'utf8' },
      (error, stdout, stderr) => {
        let out = `${stdout}${stderr}`.replace(/\n$/, '')
        if (out.length > COMMAND_OUTPUT_CAP) out = `${out.slice(0, COMMAND_OUTPUT_CAP)}\n[output cut at ${COMMAND_OUTPUT_CAP} characters]`
        if (error) {
          const code = typeof error.code === 'number' ? `exit code ${error.code}` : error.killed ? 'stopped: it ran too long' : String(error.code ?? error.message)
          out = `${out}${out ? '\n' : ''}(${code})`
        }
        resolve(out)
      },
    )
  })
}
