import { join } from 'node:path'
import { projectRoot } from '../context/instruction-files.js'
import type { SettingSource } from '../config/settings.js'
import type { HookFile } from './definitions.js'

/**
 * The files hooks are read from, in load order: the user's files first (Claude Code, Codex, Rein), then the
 * project's (Claude Code shared and local, Codex, Rein shared and local). Load order decides the order results
 * combine in, and which of two identical handlers is the one that runs. A path that is both a user and a project
 * file (a home directory that is itself a repository) is listed once, as a user file.
 */
export function hookFiles(options: { cwd: string; home: string; userHome: string; sources?: readonly SettingSource[] }): { files: HookFile[]; projectDir: string } {
  const projectDir = projectRoot(options.cwd)
  const user: HookFile[] = [
    { path: join(options.userHome, '.claude', 'settings.json'), dialect: 'claude', scope: 'user' },
    { path: join(options.userHome, '.codex', 'hooks.json'), dialect: 'codex', scope: 'user' },
    { path: join(options.home, 'settings.json'), dialect: 'claude', scope: 'user' },
  ]
  const project: HookFile[] = [
    { path: join(projectDir, '.claude', 'settings.json'), dialect: 'claude', scope: 'project' },
    { path: join(projectDir, '.claude', 'settings.local.json'), dialect: 'claude', scope: 'project' },
    { path: join(projectDir, '.codex', 'hooks.json'), dialect: 'codex', scope: 'project' },
    { path: join(projectDir, '.rein', 'settings.json'), dialect: 'claude', scope: 'project' },
    { path: join(projectDir, '.rein', 'settings.local.json'), dialect: 'claude', scope: 'project' },
  ]
  const userPaths = new Set(user.map((file) => file.path))
  const files = [...user, ...project.filter((file) => !userPaths.has(file.path))]
  return { files: options.sources ? files.filter((file) => options.sources!.includes(layerOf(file))) : files, projectDir }
}

/** The `--setting-sources` layer a hook file belongs to: the user's files, a project's `*.local.json`, or its shared files. */
function layerOf(file: HookFile): SettingSource {
  if (file.scope === 'user') return 'user'
  return file.path.endsWith('.local.json') ? 'local' : 'project'
}
