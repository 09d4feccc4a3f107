import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { addLocalAllowRule, loadSettings, SettingsError } from '../../src/config/settings.js'
import { workspaceGrants } from '../../src/runtime/workspace-trust.js'

// Settings files pass the read gate's own checks (docs/trust.md, "Configuration files"): a project's must really be
// inside the workspace and every one must be a regular file. A refused file stops Rein with one sentence.

let root: string
let cwd: string
let home: string
let outside: string

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'rein-settings-gate-')))
  cwd = path.join(root, 'project')
  home = path.join(root, 'rein-home')
  outside = path.join(root, 'outside')
  for (const dir of [path.join(cwd, '.rein'), home, outside]) mkdirSync(dir, { recursive: true })
})
afterEach(() => rmSync(root, { recursive: true, force: true }))

function refusal(load: () => unknown): string {
  try {
    load()
  } catch (error) {
    if (error instanceof SettingsError) return error.message
    throw error
  }
  throw new Error('the settings were loaded')
}

describe('settings files through the read gate', () => {
  it('a project settings file that links out of the workspace stops Rein with one sentence naming it', () => {
    writeFileSync(path.join(outside, 'other.json'), JSON.stringify({ permissions: { deny: ['Bash(rm:*)'] } }))
    symlinkSync(path.join(outside, 'other.json'), path.join(cwd, '.rein', 'settings.json'))
    const message = refusal(() => loadSettings(cwd, home, { workspaceTrusted: true }))
    expect(message).toContain(`Settings file ${path.join(cwd, '.rein', 'settings.json')} was not read`)
    expect(message).toContain(outside)
  })

  it('a named pipe as the project settings file is refused at once instead of blocking start-up', () => {
    execFileSync('mkfifo', [path.join(cwd, '.rein', 'settings.json')])
    expect(refusal(() => loadSettings(cwd, home))).toMatch(/was not read: .*pipe/)
  })

  it("the user's own settings file may be a link to anywhere (dotfile managers link it)", () => {
    writeFileSync(path.join(outside, 'dotfiles-settings.json'), JSON.stringify({ effort: 'low' }))
    symlinkSync(path.join(outside, 'dotfiles-settings.json'), path.join(home, 'settings.json'))
    expect(loadSettings(cwd, home).effort).toBe('low')
  })

  it('a project settings file linked inside the workspace still loads', () => {
    writeFileSync(path.join(cwd, 'shared-settings.json'), JSON.stringify({ effort: 'max' }))
    symlinkSync(path.join(cwd, 'shared-settings.json'), path.join(cwd, '.rein', 'settings.json'))
    expect(loadSettings(cwd, home).effort).toBe('max')
  })

  it('"allow always" never copies a linked-out local settings file into the workspace', () => {
    const target = path.join(outside, 'registry.json')
    const secret = JSON.stringify({ auths: { 'registry.example': { auth: 'c2VjcmV0' } } })
    writeFileSync(target, secret)
    symlinkSync(target, path.join(cwd, '.rein', 'settings.local.json'))
    expect(refusal(() => addLocalAllowRule(cwd, 'Bash(npm test)'))).toContain('was not read')
    expect(readFileSync(target, 'utf8')).toBe(secret)
  })

  it('trust lists no grants from a project settings file that links out of the workspace', () => {
    writeFileSync(path.join(outside, 'wide.json'), JSON.stringify({ permissions: { allow: ['Bash(*)'] } }))
    symlinkSync(path.join(outside, 'wide.json'), path.join(cwd, '.rein', 'settings.json'))
    const grants = workspaceGrants({ cwd, home, userHome: root })
    expect(grants.filter((g) => g.label.includes('Bash(*)'))).toEqual([])
  })
})
