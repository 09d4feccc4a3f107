import { canonicalJson, sha256 } from './canonical.js'

/**
 * One thing a workspace defines that widens what runs or what is allowed. Until the user trusts the workspace every
 * grant is inert. `value` is what the hash covers; `label` is how the grant is shown to a person.
 *
 * Trust receives grants, it does not find them: each loader (settings in src/config, hooks, MCP, the prompt files of
 * src/prompt-files) reads its own files with its own parser and reports what it would enable in this shape; the
 * composition root gathers the reports (src/runtime/workspace-trust.ts) and trust decides and records.
 */
export interface Grant {
  kind: 'allow' | 'defaultMode' | 'additionalDirectory' | 'privateNetwork' | 'passEnv' | 'limit' | 'hook' | 'mcpServer' | 'command' | 'skill' | 'plugin'
  /** The file that defines it, absolute. */
  file: string
  label: string
  value: unknown
}

/** Where a loader looks for what a workspace defines: the workspace's real path, `$REIN_HOME`, the user's home. */
export interface WorkspacePlaces {
  cwd: string
  home: string
  userHome: string
}

/** One loader's report: every grant its workspace files define, in the order the files are read. */
export type GrantReport = (places: WorkspacePlaces) => Grant[]

/** The hash a trust record keeps: any change to any grant (or its file) changes it. */
export function grantsHash(grants: readonly Grant[]): string {
  return sha256(canonicalJson(grants.map(({ kind, file, value }) => ({ kind, file, value }))))
}
