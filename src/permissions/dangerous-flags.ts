import path from 'node:path'
import type { CommandPart } from './shell-split.js'

/**
 * Flags and arguments that turn a command users allow as a reader into one that writes files or runs programs.
 * `Bash(find:*)` is written to allow searching; it must not allow `find . -exec sh -c …`. An allow rule covers a part
 * that uses one of these only when the rule's own pattern names the flag (`Bash(sed -i:*)`, `Bash(find . -delete)`);
 * a bare `Bash` rule covers everything. Each row: the command (and subcommands it applies to, if any), the flags as a
 * user would name them in a rule, and what they do.
 */
interface FlagRow {
  command: string
  /** Only after one of these subcommands (`git log`); absent means any. */
  subcommands?: readonly string[]
  /** Canonical spellings; a word matches as itself, as `--long=value`, or as a short flag in a cluster (`-ni`). */
  flags: readonly string[]
  why: string
  /** Short flags also match glued values and clusters (`-i.bak`, `-Psh`, `-xzf`). */
  clustered?: boolean
}

const TABLE: readonly FlagRow[] = [
  { command: 'find', flags: ['-exec', '-execdir', '-ok', '-okdir'], why: 'runs a command on each file it finds' },
  { command: 'find', flags: ['-delete', '-fprint', '-fprint0', '-fprintf', '-fls'], why: 'deletes or writes files' },
  { command: 'fd', flags: ['-x', '-X', '--exec', '--exec-batch'], why: 'runs a command on each file it finds', clustered: true },
  { command: 'git', flags: ['-c', '--config-env', '--exec-path'], why: 'sets configuration that can run programs' },
  {
    command: 'git',
    subcommands: ['log', 'diff', 'show', 'format-patch', 'whatchanged', 'range-diff', 'diff-tree', 'diff-index', 'diff-files'],
    flags: ['--output', '-o', '--output-directory'],
    why: 'writes its output to a file',
  },
  { command: 'git', subcommands: ['grep'], flags: ['-O', '--open-files-in-pager'], why: 'runs a pager program' },
  { command: 'git', subcommands: ['log', 'diff', 'show'], flags: ['--ext-diff', '--textconv'], why: 'runs external diff programs' },
  { command: 'sed', flags: ['-i', '--in-place'], why: 'edits files in place', clustered: true },
  { command: 'perl', flags: ['-i'], why: 'edits files in place', clustered: true },
  { command: 'yq', flags: ['-i', '--inplace'], why: 'edits files in place', clustered: true },
  { command: 'rg', flags: ['--pre', '--hostname-bin'], why: 'runs a program on each file' },
  { command: 'rg', flags: ['-z', '--search-zip'], why: 'runs decompression programs on each file', clustered: true },
  { command: 'base64', flags: ['-o', '--output'], why: 'writes its output to a file' },
  { command: 'ag', flags: ['--pager'], why: 'runs a pager program' },
  { command: 'man', flags: ['-P', '--pager', '-H', '--html'], why: 'runs a pager or browser program', clustered: true },
  {
    command: 'tar',
    flags: ['-x', '--extract', '--get', '-c', '--create', '-r', '--append', '-u', '--update', '-A', '--delete'],
    why: 'writes files',
    clustered: true,
  },
  {
    command: 'tar',
    flags: ['--to-command', '-I', '--use-compress-program', '--checkpoint-action', '-F', '--info-script', '--new-volume-script'],
    why: 'runs a program',
  },
  { command: 'sort', flags: ['-o', '--output'], why: 'writes its output to a file', clustered: true },
  { command: 'sort', flags: ['--compress-program', '--files0-from'], why: 'runs a program or reads a file list' },
  { command: 'shuf', flags: ['-o', '--output'], why: 'writes its output to a file', clustered: true },
  { command: 'tree', flags: ['-o'], why: 'writes its output to a file' },
  { command: 'curl', flags: ['-o', '--output', '-O', '--remote-name', '--output-dir', '-T', '--upload-file'], why: 'writes or uploads files' },
  { command: 'date', flags: ['-s', '--set'], why: 'sets the system clock', clustered: true },
]

/** Commands whose arguments are a command to run: any argument that is not a flag makes them execute it. */
const COMMAND_RUNNERS: Readonly<Record<string, string>> = {
  xargs: 'runs the command it is given',
  env: 'runs the command it is given',
}

/** What an allow rule must name to cover this part, and why: undefined when the part uses none of the table. */
export interface DangerousUse {
  /** The flag as a rule would name it (`-exec`, `--output`), or for `xargs`/`env` the command they would run. */
  flag: string
  why: string
}

export function dangerousUse(part: CommandPart): DangerousUse | undefined {
  const words = withoutAssignments(part.words)
  if (!words.length) return undefined
  const command = path.basename(words[0])
  const args = words.slice(1)
  if (command in COMMAND_RUNNERS) {
    const run = commandArgument(command, args)
    if (run !== undefined) return { flag: run, why: `${command} ${COMMAND_RUNNERS[command]} (${run})` }
  }
  if (command === 'sed') {
    const script = args.find((w) => !w.startsWith('-'))
    if (script !== undefined && sedExecutes(script)) return { flag: 'e', why: 'sed with an `e` or `w` command runs a program or writes a file' }
  }
  if (['awk', 'gawk', 'mawk', 'nawk'].includes(command)) {
    const program = args.find((w) => !w.startsWith('-'))
    if (program !== undefined && /system\s*\(|\||>|\bgetline\b/.test(program)) {
      return { flag: 'system', why: `${command} with system(), a pipe or an output redirection runs programs or writes files` }
    }
  }
  for (const row of TABLE) {
    if (row.command !== command) continue
    let scope = args
    if (row.subcommands) {
      const sub = args.findIndex((w) => !w.startsWith('-'))
      if (sub < 0 || !row.subcommands.includes(args[sub])) continue
      scope = args.slice(sub + 1)
    } else if (command === 'git') {
      // Global options come before the subcommand.
      const sub = args.findIndex((w, i) => !w.startsWith('-') && !(i > 0 && ['-c', '-C'].includes(args[i - 1])))
      scope = sub < 0 ? args : args.slice(0, sub)
    }
    if (command === 'tar' && row.clustered && scope.length && !scope[0].startsWith('-')) scope = [`-${scope[0]}`, ...scope.slice(1)]
    for (const flag of row.flags) {
      if (scope.some((w) => flagMatches(w, flag, row.clustered === true))) return { flag, why: `${command} ${flag} ${row.why}` }
    }
  }
  return undefined
}

/** Whether a rule's own pattern names the flag, so that the user saw and allowed it. */
export function ruleNamesFlag(pattern: string, use: DangerousUse): boolean {
  return pattern.split(/\s+/).some((w) => w === use.flag || w.startsWith(`${use.flag}=`))
}

function flagMatches(word: string, flag: string, clustered: boolean): boolean {
  if (word === flag) return true
  if (flag.startsWith('--') || (flag.startsWith('-') && flag.length > 2)) return flag.startsWith('--') && word.startsWith(`${flag}=`)
  if (!clustered) return false
  // A short flag: `-i.bak`, `-ni`, `-Psh`, `-xzf`. Only single-dash words count.
  if (!/^-[^-]/.test(word)) return false
  return word.slice(1).includes(flag.slice(1))
}

/** `VAR=value` words before the command name are the environment, not the command. */
function withoutAssignments(words: readonly string[]): string[] {
  let i = 0
  while (i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i])) i++
  return words.slice(i)
}

/** For `xargs` and `env`: the word naming a command to run (flags and `NAME=value` settings do not), if any. */
function commandArgument(command: string, args: readonly string[]): string | undefined {
  // Flags that take a value as the next word.
  const valued = command === 'xargs' ? ['-I', '-n', '-P', '-L', '-s', '-d', '-E', '-a', '--max-args', '--delimiter'] : ['-u', '-C', '-S']
  for (let i = 0; i < args.length; i++) {
    const w = args[i]
    if (w.startsWith('-')) {
      if (valued.includes(w)) i++
      continue
    }
    if (command === 'env' && /^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) continue
    return w
  }
  return undefined
}

/** GNU sed's `e` command and `s///e` flag run a shell; `w` writes a file. */
function sedExecutes(script: string): boolean {
  return /(^|[;{}\n]|\d|\$|\/)\s*[ew](\s|$)/.test(script) || /s(.).*\1.*\1[gpIiMm0-9]*[ew]/.test(script)
}

/**
 * Commands that run what the repository defines (package scripts, make targets, build scripts, test suites): in an
 * untrusted workspace an allow rule for them is an allow rule for whatever the repository says, so they are allowed
 * by a rule only once the workspace is trusted. Undefined for other commands.
 */
export function scriptRunner(part: CommandPart): string | undefined {
  const words = withoutAssignments(part.words)
  if (!words.length) return undefined
  const command = path.basename(words[0])
  const sub = words.slice(1).find((w) => !w.startsWith('-'))
  const runsScripts =
    ALWAYS_RUNNERS.has(command) ||
    (command === 'npm' && sub !== undefined && NPM_RUNNING.has(sub)) ||
    (command === 'cargo' && sub !== undefined && ['run', 'test', 'build', 'bench', 'check', 'clippy', 'install'].includes(sub)) ||
    (command === 'go' && sub !== undefined && ['run', 'test', 'generate', 'build'].includes(sub)) ||
    (['poetry', 'uv', 'pipenv', 'deno', 'composer'].includes(command) && sub !== undefined && ['run', 'task', 'test'].includes(sub)) ||
    (/^python3?$/.test(command) && words.includes('-m') && words.some((w) => ['pytest', 'unittest', 'tox'].includes(w)))
  return runsScripts ? `${command} runs what the repository defines (scripts, targets, build files)` : undefined
}

const ALWAYS_RUNNERS = new Set(['npx', 'yarn', 'pnpm', 'pnpx', 'bun', 'bunx', 'make', 'just', 'rake', 'gradle', 'gradlew', 'mvn', 'mvnw', 'tox', 'nox', 'task', 'pytest'])
const NPM_RUNNING = new Set(['test', 't', 'tst', 'run', 'run-script', 'rum', 'urn', 'start', 'stop', 'restart', 'exec', 'x', 'install', 'i', 'ci', 'add', 'rebuild', 'pack', 'publish', 'install-test', 'it'])
