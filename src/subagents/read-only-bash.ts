import { splitCommand } from '../permissions/shell-split.js'
import { bashTool } from '../tools/bash.js'
import { errorOutput, type AnyTool } from '../tools/tool.js'

/** Commands that only read, whatever their arguments (apart from the flags refused below). */
const READERS = new Set([
  'cat', 'head', 'tail', 'wc', 'ls', 'find', 'grep', 'egrep', 'fgrep', 'rg', 'pwd', 'echo', 'stat', 'file', 'du',
  'df', 'tree', 'sort', 'uniq', 'cut', 'tr', 'basename', 'dirname', 'realpath', 'which', 'nl', 'diff', 'cmp', 'md5sum',
  'sha256sum', 'true', 'test', 'jq',
])
/** git subcommands that only read. */
const GIT_READERS = new Set(['log', 'show', 'diff', 'status', 'blame', 'rev-parse', 'ls-files', 'grep', 'describe', 'shortlog', 'ls-tree', 'cat-file'])
/** Flags that make a reader write or run something (`find -delete`, `sort -o`, `rg --pre`). */
const WRITING_FLAGS = /^(-delete|-exec|-execdir|-ok|-okdir|-fprint.*|-fls|-o|--output.*|--pre.*|--ext-diff|--output-directory)$/

/**
 * Why `command` is not a read-only command, or undefined when it is: every part of it is a known reader (git only
 * with a reading subcommand), with no flag that writes or runs, no output redirection, and nothing bash would run
 * that the text does not show (command substitution and the like).
 */
export function notReadOnly(command: string): string | undefined {
  const split = splitCommand(command)
  if (split.opaque) return 'it runs something its text does not show (command substitution, a subshell or redirection to a file)'
  if (split.redirects.some((r) => r.op.includes('>'))) return 'it redirects output to a file'
  for (const part of split.parts) {
    const [name, ...args] = part.words
    if (name === undefined) continue
    if (name === 'git') {
      const sub = args.find((a) => !a.startsWith('-'))
      if (!sub || !GIT_READERS.has(sub) || args.some((a) => a.startsWith('-c') || a === '--output' || a.startsWith('--output='))) {
        return `git ${sub ?? ''} is not a reading git command`.replace('  ', ' ')
      }
      continue
    }
    if (!READERS.has(name)) return `${name} is not on the list of reading commands`
    const flag = args.find((a) => WRITING_FLAGS.test(a))
    if (flag) return `${name} ${flag} can write or run commands`
  }
  return undefined
}

/** `bash` for agents that only read: same name, schema and description; a command that could change anything is refused. */
export const readOnlyBashTool: AnyTool = {
  ...bashTool,
  run(args: { command: string }, ctx) {
    const reason = notReadOnly(args.command)
    if (reason) {
      return Promise.resolve(
        errorOutput(`Error: this agent only reads, and this command was refused because ${reason}. Use read, grep, glob or ls, or a reading command such as cat, grep, find or git log.`),
      )
    }
    return bashTool.run(args, ctx)
  },
}
