import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { PermissionMode } from '../../src/agent/types.js'
import type { Settings } from '../../src/config/settings.js'
import { createPermissionPolicy, type PermissionPolicyOptions } from '../../src/permissions/policy.js'
import type { call } from './calls.js'

/** A workspace beside a fake home with a planted `~/.ssh/id_rsa` and a `$REIN_HOME` holding credentials and a session. */
export interface PolicyFixture {
  root: string
  cwd: string
  home: string
  reinHome: string
  policy(mode: PermissionMode, permissions?: Settings['permissions'], extra?: Partial<PermissionPolicyOptions>): ReturnType<typeof createPermissionPolicy>
  decide(mode: PermissionMode, c: ReturnType<typeof call>, permissions?: Settings['permissions'], extra?: Partial<PermissionPolicyOptions>): { action: string; reason?: string }
  dispose(): void
}

export function policyFixture(): PolicyFixture {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'rein-perm-')))
  const cwd = path.join(root, 'work')
  const home = path.join(root, 'home')
  const reinHome = path.join(home, '.rein')
  for (const d of [path.join(cwd, 'src'), path.join(home, '.ssh'), path.join(reinHome, 'sessions')]) mkdirSync(d, { recursive: true })
  writeFileSync(path.join(home, '.ssh/id_rsa'), 'SECRET-SENTINEL\n')
  writeFileSync(path.join(reinHome, 'credentials'), 'sk-planted\n')
  writeFileSync(path.join(cwd, 'src/a.ts'), 'export {}\n')
  const policy: PolicyFixture['policy'] = (mode, permissions = {}, extra = {}) =>
    createPermissionPolicy({ cwd, settings: { permissions }, getMode: () => mode, home, reinHome, ...extra })
  return {
    root,
    cwd,
    home,
    reinHome,
    policy,
    decide: (mode, c, permissions, extra) => policy(mode, permissions, extra).decide(c),
    dispose: () => rmSync(root, { recursive: true, force: true }),
  }
}
