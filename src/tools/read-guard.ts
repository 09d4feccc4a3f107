import type { ToolState } from './tool.js'

/**
 * The `Read` deny rules and Rein's own home, as every tool that opens or lists files applies them: the policy judges
 * a call's `path` argument, and the tools ask the guard again for each file they open or list while walking (grep of
 * `~` must not open `~/.ssh/id_rsa` past `Read(~/.ssh/**)`). The permission policy builds it
 * (`src/permissions/read-guard.ts`) and installs it in the tools' state.
 */
export interface ReadGuard {
  /** Why reading or listing `absolute` is refused (a clause: "the permission rule Read(~/.ssh/**) covers it"), or undefined. */
  refuses(absolute: string): string | undefined
  /**
   * Why Rein may not load `absolute` as a file of its own (instructions, commands, skills, agents; the read gate of
   * `src/fs/read-gate.ts`): as `refuses`, except that the places in Rein's home where the user keeps such files
   * (`AGENTS.md`, `commands/`, `skills/`, `agents/`) are not refused; the rest of the home (credentials, sessions) is.
   */
  refusesLoading(absolute: string): string | undefined
}

const GUARD_KEY = 'permissions/read-guard'

/** Makes the guard the tools of this agent consult for every file they open or list. */
export function installReadGuard(state: ToolState, guard: ReadGuard): void {
  state.extra.set(GUARD_KEY, guard)
}

/** The guard installed for these tools; none when the tools run without a permission policy (unit tests). */
export function readGuardOf(state: ToolState): ReadGuard | undefined {
  return state.extra.get(GUARD_KEY) as ReadGuard | undefined
}

/** The line a listing tool appends when it left files out. */
export function leftOutNote(count: number): string {
  return `[${count} ${count === 1 ? 'path was' : 'paths were'} left out: a Read deny rule or Rein's own home covers ${count === 1 ? 'it' : 'them'}]`
}
