// Installs the Claude Agent SDK's types into interop/claude-agent-sdk (docs/testing.md, "The Claude Agent SDK,
// installed apart") when they are missing or older than that package's lock file, so `npm test` and
// `npm run typecheck` work straight after the root `npm ci`. `--omit=optional` leaves out the SDK's 384 MB binary.
import { execFileSync } from 'node:child_process'
import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'

const dir = join(import.meta.dirname, '..', 'interop', 'claude-agent-sdk')
const installed = join(dir, 'node_modules', '.package-lock.json')
const lock = join(dir, 'package-lock.json')
if (!existsSync(installed) || statSync(installed).mtimeMs < statSync(lock).mtimeMs) {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
  execFileSync(npm, ['ci', '--prefix', dir, '--omit=optional', '--no-audit', '--no-fund'], { stdio: 'inherit' })
}
