import { join } from 'node:path'
import type { PermissionMode } from '../agent/types.js'
import { addRuleTo } from '../config/settings.js'
import { readPermissionUpdates, type RuleDestination } from '../permissions/updates.js'

/**
 * Applies the `updatedPermissions` of a permission answer (an SDK host's `canUseTool`, a PermissionRequest hook) as
 * "allow always" does: each allow rule holds for the rest of the session at once, and a destination other than
 * `session` also writes it to Rein's settings file of that layer (`localSettings` → `.rein/settings.local.json`,
 * `projectSettings` → `.rein/settings.json`, `userSettings` → `$REIN_HOME/settings.json`). `setMode` switches the
 * mode. Each part left out, and each file that could not be written, is one warning.
 */
export function permissionUpdater(o: {
  cwd: string
  home: string
  allowForSession: (rule: string) => void
  setMode: (mode: PermissionMode) => void
  warn: (message: string) => void
}): (raw: unknown, by: string) => void {
  const files: Record<Exclude<RuleDestination, 'session'>, { file: string; folder: { dir: string; base: string } }> = {
    local: { file: join(o.cwd, '.rein', 'settings.local.json'), folder: { dir: o.cwd, base: o.cwd } },
    project: { file: join(o.cwd, '.rein', 'settings.json'), folder: { dir: o.cwd, base: o.cwd } },
    user: { file: join(o.home, 'settings.json'), folder: { dir: '/', base: '/' } },
  }
  return (raw, by) => {
    const updates = readPermissionUpdates(raw, by)
    updates.ignored.forEach((message) => o.warn(message))
    for (const { rule, destination } of updates.allow) {
      o.allowForSession(rule)
      if (destination === 'session') continue
      const target = files[destination]
      try {
        addRuleTo(target.file, target.folder, 'allow', rule)
      } catch (error) {
        o.warn(`The rule ${rule} from ${by} holds for this session but could not be saved to ${target.file}: ${(error as Error).message}`)
      }
    }
    if (updates.mode) o.setMode(updates.mode)
  }
}
