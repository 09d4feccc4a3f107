import { readConfigFile, type GatedFile } from '../fs/read-gate.js'
import type { Grant, WorkspacePlaces } from '../trust/grant.js'
import type { SettingSource } from '../config/settings.js'
import type { HookDefinition, HookFile } from './definitions.js'
import { displayPath, parseHookFile } from './config-file.js'
import { hookFiles } from './discovery.js'
import { recordTrust, trustedHashes } from './trust.js'

export interface CatalogOptions {
  cwd: string
  /** REIN_HOME: Rein's own user settings and the trust file live here. */
  home: string
  /** The user's home directory, where `~/.claude` and `~/.codex` are. */
  userHome: string
  /** Trust every project definition found now, and record that trust (per definition, `rein hooks trust`). */
  trustProjectHooks?: boolean
  /** The user trusts the whole workspace (`src/trust/`): every project definition runs, nothing is recorded here. */
  workspaceTrusted?: boolean
  /** `--setting-sources`: only the files of these layers are read; all when absent. */
  sources?: readonly SettingSource[]
  /**
   * Hooks given on the command line (`--settings`): read after every file, as the user's own (trusted). `from` names
   * them in notices: the file's path, or `<--settings>` for JSON text.
   */
  flagHooks?: { hooks: unknown; from: string }
  /** Hook configurations from source roots (plugins), already read through the read gate; loaded after the files. */
  extra?: readonly ExtraHookFile[]
}

/** One hook configuration a source root brings: its file (scope and variables) and its text. */
export interface ExtraHookFile {
  file: HookFile
  text: string
}

/** Every hook definition found, split by whether it may run. */
export interface HookCatalog {
  /** The project directory: exported to hooks as `CLAUDE_PROJECT_DIR`. */
  projectDir: string
  /** Definitions that run: user definitions and trusted project definitions, in load order. */
  active: HookDefinition[]
  /** Project definitions that are new or changed since the user last trusted them; they do not run. */
  untrusted: HookDefinition[]
  /** Files that could not be read or parsed, and the parts of files that were skipped: one sentence each. */
  problems: string[]
}

/** The sentence that tells a person a project hook was skipped, and how to allow it. */
export function untrustedProblem(definition: HookDefinition, cwd: string): string {
  return `Skipped the new or changed ${definition.event} hook "${definition.command}" in ${displayPath(definition.file.path, cwd)}; run \`rein hooks trust\` to allow it.`
}

/**
 * Reads every hook file, checks project definitions against the trust file, and says what was skipped and why.
 * A missing file is no problem; an unreadable or malformed one is reported by name and the others still load.
 */
export function loadHookCatalog(options: CatalogOptions): HookCatalog {
  const { files, projectDir } = hookFiles(options)
  const problems: string[] = []
  const all: HookDefinition[] = []
  for (const file of files) {
    const read = readHookFile(file, projectDir)
    if (read.kind === 'absent') continue
    if (read.kind === 'skipped') {
      problems.push(`Skipped ${displayPath(file.path, options.cwd)}: ${read.reason}.`)
      continue
    }
    const text = read.bytes.toString('utf8')
    const parsed = parseHookFile(text, file, all.length, options.cwd)
    all.push(...parsed.definitions)
    problems.push(...parsed.problems)
  }
  for (const extra of options.extra ?? []) {
    const parsed = parseHookFile(extra.text, extra.file, all.length, options.cwd)
    all.push(...parsed.definitions)
    problems.push(...parsed.problems)
  }
  if (options.flagHooks?.hooks !== undefined) {
    const file: HookFile = { path: options.flagHooks.from, dialect: 'claude', scope: 'user' }
    const parsed = parseHookFile(JSON.stringify({ hooks: options.flagHooks.hooks }), file, all.length, options.cwd)
    all.push(...parsed.definitions)
    problems.push(...parsed.problems)
  }
  const projectDefinitions = all.filter((definition) => definition.file.scope === 'project')
  if (options.trustProjectHooks) recordTrust(options.home, projectDefinitions)
  const trusted = trustedHashes(options.home)
  const untrusted = options.workspaceTrusted ? [] : projectDefinitions.filter((definition) => !trusted.has(definition.hash))
  const skipped = new Set(untrusted)
  return { projectDir, active: all.filter((definition) => !skipped.has(definition)), untrusted, problems }
}

/**
 * One hook file through the read gate's own checks (docs/trust.md): a project's must stay inside the project root; a
 * user's may link anywhere (dotfile managers link them), and neither may be a pipe that would block start-up.
 */
export function readHookFile(file: HookFile, projectDir: string): GatedFile {
  const dir = file.scope === 'project' ? projectDir : '/'
  return readConfigFile(file.path, { dir, base: dir })
}

/**
 * The hook loader's report for workspace trust: every project definition, read and parsed as `loadHookCatalog` reads
 * it. A file the gate refuses or that is missing defines nothing (the catalog reports the first).
 */
export function hookGrants(places: WorkspacePlaces): Grant[] {
  const { files, projectDir } = hookFiles(places)
  const grants: Grant[] = []
  for (const file of files.filter((f) => f.scope === 'project')) {
    const read = readHookFile(file, projectDir)
    if (read.kind !== 'read') continue
    for (const definition of parseHookFile(read.bytes.toString('utf8'), file, 0, places.cwd).definitions) {
      const matcher = definition.matcher ? ` on ${definition.matcher}` : ''
      grants.push({
        kind: 'hook',
        file: file.path,
        label: `${definition.event} hook${matcher} running ${JSON.stringify(definition.command)}`,
        value: definition.hash,
      })
    }
  }
  return grants
}
