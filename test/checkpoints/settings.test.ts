import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadSettings, SettingsError } from '../../src/config/settings.js'
import { DEFAULT_MAX_FILE_BYTES } from '../../src/checkpoints/engine.js'
import { checkpointConfig } from '../../src/checkpoints/settings.js'

function homeWith(text: string): { cwd: string; home: string; file: string } {
  const root = mkdtempSync(join(tmpdir(), 'rein-checkpoint-settings-'))
  const cwd = join(root, 'project')
  const home = join(root, 'home')
  mkdirSync(cwd)
  mkdirSync(home)
  const file = join(home, 'settings.json')
  writeFileSync(file, text)
  return { cwd, home, file }
}

function refusal(text: string): SettingsError {
  const { cwd, home } = homeWith(text)
  try {
    loadSettings(cwd, home)
  } catch (error) {
    if (error instanceof SettingsError) return error
    throw error
  }
  throw new Error('the settings were accepted')
}

describe('the checkpoints settings block', () => {
  it('defaults to on, 20 sessions, 30 days and 10 MiB when the block is absent', () => {
    expect(checkpointConfig({})).toEqual({ enabled: true, keepSessions: 20, keepDays: 30, maxFileBytes: DEFAULT_MAX_FILE_BYTES })
  })

  it('takes every value a file sets', () => {
    const { cwd, home } = homeWith('{"checkpoints": {"enabled": false, "keepSessions": 3, "keepDays": 0.5, "maxFileBytes": 2048}}')
    expect(checkpointConfig(loadSettings(cwd, home))).toEqual({ enabled: false, keepSessions: 3, keepDays: 0.5, maxFileBytes: 2048 })
  })

  it.each([
    ['enabled', '"yes"'],
    ['keepSessions', '-1'],
    ['keepSessions', '2.5'],
    ['keepDays', '-3'],
    ['keepDays', '"a month"'],
    ['maxFileBytes', '0'],
  ])('refuses %s set to %s with one sentence naming the file and line', (key, value) => {
    const error = refusal(`{\n  "model": "deepseek-chat",\n  "checkpoints": {\n    "${key}": ${value}\n  }\n}\n`)
    expect(error.line).toBe(4)
    expect(error.message).toContain(error.file)
    expect(error.message).toMatch(new RegExp(`line 4: checkpoints\\.${key}: .*Fix it and start Rein again\\.$`))
    expect(error.message.split('\n')).toHaveLength(1)
  })

  it('refuses a checkpoints block that is not an object, naming its line', () => {
    const error = refusal('{\n  "checkpoints": true\n}\n')
    expect(error.line).toBe(2)
    expect(error.message).toMatch(/line 2: checkpoints: /)
  })
})

describe('the checkpoints block in a workspace', () => {
  function project(text: string): { cwd: string; home: string } {
    const root = mkdtempSync(join(tmpdir(), 'rein-checkpoint-settings-'))
    const cwd = join(root, 'project')
    const home = join(root, 'home')
    mkdirSync(join(cwd, '.rein'), { recursive: true })
    mkdirSync(home)
    writeFileSync(join(cwd, '.rein', 'settings.json'), text)
    return { cwd, home }
  }

  it('is ignored until the workspace is trusted, so a cloned repository cannot turn off or prune the undo', () => {
    const { cwd, home } = project('{"checkpoints": {"enabled": false, "keepSessions": 0, "keepDays": 0}}')
    expect(checkpointConfig(loadSettings(cwd, home)).enabled).toBe(true)
    expect(checkpointConfig(loadSettings(cwd, home)).keepSessions).toBe(20)
  })

  it('applies once the workspace is trusted', () => {
    const { cwd, home } = project('{"checkpoints": {"enabled": false}}')
    expect(checkpointConfig(loadSettings(cwd, home, { workspaceTrusted: true })).enabled).toBe(false)
  })

  it('is still checked in an untrusted workspace: a bad value stops Rein with its file and line', () => {
    const { cwd, home } = project('{\n  "checkpoints": {"keepSessions": "all"}\n}')
    expect(() => loadSettings(cwd, home)).toThrow(/settings\.json, line 2: checkpoints\.keepSessions: /)
  })
})
