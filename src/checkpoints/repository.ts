import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { healStaleLocks, staleLockNotice } from './locks.js'
import type { ModeManifest } from './modes.js'
import { sweepPrivateIndexes } from './private-index.js'
import { detachedHead, LEGACY_REF } from './refs.js'
import type { ShadowGit } from './shadow-git.js'
import { lstatOf } from './staging.js'

/** Paths no snapshot holds, whatever `.gitignore` says (gitignore syntax, in the shadow repository's info/exclude). */
export const REIN_IGNORE: readonly string[] = ['.git', 'node_modules/']

/** The file in a shadow repository that names the workspace it covers (for listings and `prune --all-workspaces`). */
export const WORKSPACE_FILE = 'rein-workspace'

export interface RepositoryOptions {
  git: ShadowGit
  gitDir: string
  cwd: string
  protectedPatterns: readonly string[]
  modes: ModeManifest
  /** Told of each stale lock removed on the way (one sentence). */
  notice: (message: string) => void
}

/**
 * Creates the shadow repository on first use, and brings an older one to the current layout: a `HEAD` still
 * pointing at the legacy chain is detached at its tip (the chain itself stays, restorable until pruned).
 */
export async function prepareRepository(options: RepositoryOptions): Promise<void> {
  const { git, gitDir } = options
  // Private indexes (and their locks) a killed Rein's deferred writes left: Rein's own files, removed without a notice.
  sweepPrivateIndexes(gitDir)
  // Locks a killed git left, also on refs no command of this engine may write soon (src/checkpoints/locks.ts).
  for (const lock of await healStaleLocks(gitDir)) options.notice(staleLockNotice(lock))
  if (!existsSync(join(gitDir, 'HEAD'))) {
    mkdirSync(gitDir, { recursive: true })
    // No template: its sample hooks (about 60 KB) never run here (hooks are off) and only take room in $REIN_HOME.
    await git(['init', '--quiet', '--bare', '--template='], undefined, true)
    // The untracked cache lets `status` skip directories whose mtime did not change: most of a big workspace.
    await git(['config', 'core.untrackedCache', 'true'], undefined, true)
    // Retention's gc must leave session refs loose: a snapshot checks its ref by reading the file (refs.ts).
    await git(['config', 'gc.packRefs', 'false'], undefined, true)
  }
  mkdirSync(join(gitDir, 'info'), { recursive: true })
  writeFileSync(join(gitDir, 'info', 'exclude'), [...REIN_IGNORE, ...options.protectedPatterns].join('\n') + '\n')
  // Highest-precedence attributes: no filter, end-of-line or encoding conversion, so snapshots are byte-exact.
  writeFileSync(join(gitDir, 'info', 'attributes'), '* -text -eol -filter -ident -working-tree-encoding\n')
  writeFileSync(join(gitDir, WORKSPACE_FILE), options.cwd + '\n')
  if (!detachedHead(gitDir)) {
    const legacy = await resolveCommit(git, LEGACY_REF)
    if (legacy) await git(['-c', 'core.logAllRefUpdates=false', 'update-ref', '--no-deref', 'HEAD', legacy])
  }
  // Reflogs the older layout wrote would keep every snapshot reachable, so nothing could ever be pruned.
  rmSync(join(gitDir, 'logs'), { recursive: true, force: true })
  await untrackProtected(options)
  if (!options.modes.exists()) await recordAllModes(options)
  // Private indexes of restores before this one (killed ones leave theirs): nothing reads them any more.
  for (const name of readdirSync(gitDir)) if (name.startsWith('rewind-index-')) rmSync(join(gitDir, name), { force: true })
}

/** The commit a ref names, or '' when it names none. */
export function resolveCommit(git: ShadowGit, ref: string): Promise<string> {
  return git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]).then(
    (out) => out.toString().trim(),
    // No such ref (never written, or pruned): there is no snapshot to build on.
    () => '',
  )
}

/**
 * Drops from the shadow index every protected path an older Rein staged (once per list of patterns: the list is
 * kept in `rein-protected`), so later snapshots no longer hold them; the ignore rules keep them out from then on.
 */
async function untrackProtected(options: RepositoryOptions): Promise<void> {
  const { git, gitDir } = options
  const marker = join(gitDir, 'rein-protected')
  const wanted = options.protectedPatterns.join('\n') + '\n'
  if (readText(marker) === wanted) return
  if (existsSync(join(gitDir, 'index'))) {
    const specs = options.protectedPatterns.map((p) => (p.startsWith('/') ? `:(literal)${p.slice(1, -1)}` : `:(glob)${p}`))
    const tracked = await git(['ls-files', '-z', '--', ...specs])
    if (tracked.length) await git(['update-index', '-z', '--force-remove', '--stdin'], tracked)
  }
  writeFileSync(marker, wanted)
}

/** Starts the modes manifest of a repository that has none: every file the index holds is looked at once. */
async function recordAllModes(options: RepositoryOptions): Promise<void> {
  const { modes } = options
  modes.create()
  if (existsSync(join(options.gitDir, 'index'))) {
    for (const path of (await options.git(['ls-files', '-z'])).toString('utf8').split('\0')) {
      if (path) modes.note(path, lstatOf(join(options.cwd, path)))
    }
  }
  modes.save()
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    // Not written yet.
    return undefined
  }
}
