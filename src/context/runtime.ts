import type { EnteringMessage, Extension } from '../agent/extensions.js'
import type { PermissionMode } from '../agent/types.js'
import { gitState, type GitState } from './git-state.js'
import { ProducedIndex, textOfBlocks } from './produced-messages.js'
import { systemReminder } from './reminder.js'

/** The `source.kind` of every message this producer writes. */
export const RUNTIME_CONTEXT = 'runtime-context'

/** What each permission mode means for the model, in the words the runtime context uses. */
const MODE_MEANING: Record<PermissionMode, string> = {
  default: 'reads are free; edits and commands need approval',
  'accept-edits': 'file edits inside the working directory are allowed; commands need the user’s approval',
  plan: 'read-only: explore and plan, and change nothing; tools that write or run commands are denied',
  bypass: 'every tool call is allowed without asking',
}

/** The facts of one moment. */
export interface RuntimeFacts {
  date: string
  permissionMode: PermissionMode
  git: GitState
}

/**
 * The runtime-context producer: facts that change between requests (today's date, the permission mode, the git
 * branch and whether the tree is dirty). Before every step it writes the facts as one `<system-reminder>` block and
 * enters it as a `context/message` only when the text differs from its last message still on the surface (or already
 * entering), so while nothing changes the request prefix stays byte-identical and cached. After compaction shadowed
 * its last message, the facts are told again.
 */
export function runtimeContext(options: { now?: () => Date } = {}): Extension {
  const now = options.now ?? (() => new Date())
  // The git probe starts a process (~15 ms), so it runs at the first step of each turn and after a step whose tools
  // could have changed the tree; the probe starts as soon as such a tool finishes, overlapping the rest of the step.
  let git: Promise<GitState> | undefined
  const produced = new ProducedIndex(RUNTIME_CONTEXT)
  return {
    name: RUNTIME_CONTEXT,
    event: (event, agent) => produced.observe(event, agent),
    postTool(call, _result, agent) {
      // After a read-only tool (as the tool declares itself) the last git probe still holds.
      if (!call.tool?.readOnly) git = gitState(agent.cwd)
    },
    async preStep(step, entering, agent) {
      if (step.step === 1 || !git) git = gitState(agent.cwd)
      const facts: RuntimeFacts = {
        date: localDate(now()),
        permissionMode: agent.permissionMode,
        git: await git,
      }
      const text = runtimeText(facts)
      const last = produced.messages(agent, entering).at(-1)
      if (last && textOfBlocks(last.content) === text) return
      const message: EnteringMessage = {
        type: 'context/message',
        content: [{ type: 'text', text }],
        source: { kind: RUNTIME_CONTEXT },
        meta: { date: facts.date, permissionMode: facts.permissionMode, git: gitMeta(facts.git) },
      }
      return { action: 'enter', messages: [...entering, message] }
    },
  }
}

/** The exact block the model reads for a set of facts. */
export function runtimeText(facts: RuntimeFacts): string {
  return systemReminder(
    [
      'Current session facts (until a later reminder changes them):',
      `- Date: ${facts.date}`,
      `- Permission mode: ${facts.permissionMode} (${MODE_MEANING[facts.permissionMode]})`,
      `- Git: ${gitLine(facts.git)}`,
    ].join('\n'),
  )
}

function gitLine(git: GitState): string {
  if (git.kind === 'none') return 'the working directory is not in a git repository'
  if (git.kind === 'unavailable') return 'git is not installed'
  const branch = git.branch === null ? 'detached HEAD' : `branch ${git.branch}`
  const state = git.dirty === null ? 'status unknown' : git.dirty ? 'uncommitted changes' : 'clean'
  return `${branch}, ${state}`
}

function gitMeta(git: GitState): { [key: string]: string | boolean | null } {
  return git.kind === 'repository' ? { kind: git.kind, branch: git.branch, dirty: git.dirty } : { kind: git.kind }
}

/** `YYYY-MM-DD` in the machine's local time zone: the date the user sees on their clock. */
export function localDate(date: Date): string {
  const pad = (n: number): string => String(n).padStart(2, '0')
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`
}
