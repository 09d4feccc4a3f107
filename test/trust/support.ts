import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

/** A throwaway machine: a workspace, a REIN_HOME and a user home, all under one real temp directory. */
export function place(): { root: string; cwd: string; home: string; userHome: string } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'rein-trust-')))
  const made = { root, cwd: join(root, 'project'), home: join(root, 'rein-home'), userHome: join(root, 'user') }
  for (const dir of [made.cwd, made.home, made.userHome]) mkdirSync(dir, { recursive: true })
  return made
}

export function put(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value, null, 2))
}
