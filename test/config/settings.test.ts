import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { addLocalAllowRule, loadSettings, loadSettingsReport, SettingsError } from '../../src/config/settings.js'
import { LIMITS } from '../../src/config/limits.js'
import { DEFAULT_STOP_LIMITS } from '../../src/hooks/stop-guard.js'

let root: string
let cwd: string
let home: string

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'rein-settings-')))
  cwd = path.join(root, 'project')
  home = path.join(root, 'rein-home')
  mkdirSync(path.join(cwd, '.rein'), { recursive: true })
  mkdirSync(home, { recursive: true })
})
afterEach(() => rmSync(root, { recursive: true, force: true }))

const userFile = () => path.join(home, 'settings.json')
const projectFile = () => path.join(cwd, '.rein', 'settings.json')
const localFile = () => path.join(cwd, '.rein', 'settings.local.json')
const put = (file: string, value: unknown) => writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value, null, 2))

function settingsError(): SettingsError {
  try {
    loadSettings(cwd, home)
  } catch (error) {
    if (error instanceof SettingsError) return error
    throw error
  }
  throw new Error('loadSettings did not throw')
}

describe('settings', () => {
  it('returns empty settings when no file exists', () => {
    expect(loadSettings(cwd, home)).toEqual({})
  })

  it('merges user, project and local files: arrays concatenate, objects merge, later scalars win', () => {
    put(userFile(), { model: 'deepseek-chat', permissions: { deny: ['Read(~/.ssh/**)'], allow: ['Bash(ls)'] }, webFetch: { allowPrivate: false } })
    put(projectFile(), { permissions: { allow: ['Bash(npm test)'], defaultMode: 'plan' }, hooks: { Stop: [] } })
    put(localFile(), { model: 'deepseek-reasoner', permissions: { allow: ['Bash(ls)', 'Edit(src/**)'] }, webFetch: { allowPrivate: true } })
    expect(loadSettings(cwd, home, { workspaceTrusted: true })).toEqual({
      model: 'deepseek-reasoner',
      permissions: { deny: ['Read(~/.ssh/**)'], allow: ['Bash(ls)', 'Bash(npm test)', 'Edit(src/**)'], defaultMode: 'plan' },
      webFetch: { allowPrivate: true },
      hooks: { Stop: [] },
    })
  })

  it('accepts the mode names other harnesses use', () => {
    put(projectFile(), { permissions: { defaultMode: 'acceptEdits' } })
    expect(loadSettings(cwd, home, { workspaceTrusted: true }).permissions?.defaultMode).toBe('accept-edits')
  })

  it('reports invalid JSON with the file, line and column', () => {
    put(projectFile(), '{\n  "model": "x",\n  "permissions": {\n    "allow": ["Bash(ls)",]\n  }\n}\n')
    const error = settingsError()
    expect(error.file).toBe(projectFile())
    expect(error.line).toBe(4)
    expect(error.message).toMatch(new RegExp(`${projectFile().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not valid JSON at line 4, column \\d+: trailing comma`))
  })

  it('reports a value of the wrong type with the line it is on', () => {
    put(userFile(), '{\n  "model": "x",\n  "permissions": {\n    "allow": "Bash(ls)"\n  }\n}')
    const error = settingsError()
    expect(error.line).toBe(4)
    expect(error.message).toMatch(/settings.json, line 4: permissions.allow: .*Fix it and start Rein again\./)
  })

  it('types the compaction, wire, stopHooks and models settings, reporting a wrong value with its line', () => {
    put(userFile(), '{\n  "compaction": {\n    "ratio": "high"\n  }\n}')
    expect(settingsError()).toMatchObject({ line: 3, message: expect.stringMatching(/line 3: compaction\.ratio: .*Fix it and start Rein again\./) })
    put(userFile(), '{\n  "wire": "grpc"\n}')
    expect(settingsError()).toMatchObject({ line: 2, message: expect.stringMatching(/line 2: wire: /) })
    put(userFile(), '{\n  "stopHooks": {\n    "maxContinuations": 0\n  }\n}')
    expect(settingsError()).toMatchObject({ line: 3, message: expect.stringMatching(/line 3: stopHooks\.maxContinuations: /) })
    put(userFile(), '{\n  "models": {\n    "deepseek-v4-flash": {\n      "compactAt": "soon"\n    }\n  }\n}')
    expect(settingsError()).toMatchObject({ line: 4, message: expect.stringMatching(/models\.deepseek-v4-flash\.compactAt: /) })
    put(userFile(), { wire: 'anthropic', compaction: { ratio: 0.5 }, stopHooks: { maxIdenticalReasons: 2 }, models: { m: { compactAt: 0.6 } } })
    expect(loadSettings(cwd, home)).toMatchObject({ wire: 'anthropic', compaction: { ratio: 0.5 }, stopHooks: { maxIdenticalReasons: 2 }, models: { m: { compactAt: 0.6 } } })
  })

  it('reports a malformed rule with the line it is on, rather than dropping it', () => {
    put(localFile(), '{\n  "permissions": {\n    "deny": [\n      "Bash(rm:*)",\n      "Bsh(curl:*)"\n    ]\n  }\n}')
    const error = settingsError()
    expect(error.file).toBe(localFile())
    expect(error.line).toBe(5)
    expect(error.message).toMatch(/unknown tool "Bsh"/)
  })

  it('reports an unknown permission mode and a non-object file', () => {
    put(projectFile(), '{"permissions": {"defaultMode": "yolo"}}')
    expect(settingsError().message).toMatch(/line 1: permissions.defaultMode/)
    put(projectFile(), '[1, 2]')
    expect(settingsError().message).toMatch(/line 1: the top level/)
  })

  it('treats an empty file as no settings', () => {
    put(projectFile(), '  \n')
    expect(loadSettings(cwd, home)).toEqual({})
  })

  it('adds an "allow always" rule to the local file, keeping what is there', () => {
    put(localFile(), { model: 'm', permissions: { allow: ['Bash(ls)'] } })
    addLocalAllowRule(cwd, 'Bash(npm test)')
    addLocalAllowRule(cwd, 'Bash(npm test)')
    expect(JSON.parse(readFileSync(localFile(), 'utf8'))).toEqual({ model: 'm', permissions: { allow: ['Bash(ls)', 'Bash(npm test)'] } })
    expect(loadSettings(cwd, home, { workspaceTrusted: true }).permissions?.allow).toEqual(['Bash(ls)', 'Bash(npm test)'])
  })

  it('creates the local file when there is none, and refuses to overwrite a malformed one', () => {
    rmSync(path.join(cwd, '.rein'), { recursive: true })
    addLocalAllowRule(cwd, 'Edit(src/**)')
    expect(loadSettings(cwd, home, { workspaceTrusted: true }).permissions?.allow).toEqual(['Edit(src/**)'])
    put(localFile(), '{ broken')
    expect(() => addLocalAllowRule(cwd, 'Bash(ls)')).toThrow(SettingsError)
    expect(readFileSync(localFile(), 'utf8')).toBe('{ broken')
  })
})

describe('limits in an untrusted project file', () => {
  it('keep a lowered limit and drop a raised one, naming it', () => {
    put(projectFile(), { subagents: { maxDepth: 3, parallel: 2 }, stopHooks: { maxContinuations: 50, maxIdenticalReasons: 1 } })
    const { settings, ignoredLimits } = loadSettingsReport(cwd, home)
    expect(settings.subagents).toEqual({ parallel: 2 })
    expect(settings.stopHooks).toEqual({ maxIdenticalReasons: 1 })
    expect(ignoredLimits.map((i) => [i.name, i.value, i.kept])).toEqual([
      ['subagents.maxDepth', 3, 1],
      ['stopHooks.maxContinuations', 50, 8],
    ])
  })

  it("compare with the user's own value: a project may lower a raised user limit but not pass it", () => {
    put(userFile(), { subagents: { maxDepth: 4 } })
    put(projectFile(), { subagents: { maxDepth: 3 } })
    put(localFile(), { subagents: { maxDepth: 5 } })
    const { settings, ignoredLimits } = loadSettingsReport(cwd, home)
    expect(settings.subagents?.maxDepth).toBe(3)
    expect(ignoredLimits.map((i) => [i.name, i.value, i.kept])).toEqual([['subagents.maxDepth', 5, 3]])
  })

  it('may not reprice a model or raise its output cap, but may lower it', () => {
    put(projectFile(), { models: { 'deepseek-flash': { prices: { output: 0 }, maxOutput: 1000, contextWindow: 99_999_999, compactAt: 0.5 } } })
    const { settings, ignoredLimits } = loadSettingsReport(cwd, home)
    expect(settings.models?.['deepseek-flash']).toEqual({ maxOutput: 1000, compactAt: 0.5 })
    expect(ignoredLimits.map((i) => i.name)).toEqual(['models.deepseek-flash.prices', 'models.deepseek-flash.contextWindow'])
  })

  it('take effect as written once the workspace is trusted', () => {
    put(projectFile(), { subagents: { maxDepth: 3, parallel: 16 } })
    expect(loadSettings(cwd, home, { workspaceTrusted: true }).subagents).toEqual({ maxDepth: 3, parallel: 16 })
  })
})

it('the limits table holds the same Stop-hook defaults the hooks use', () => {
  expect([LIMITS['stopHooks.maxContinuations'], LIMITS['stopHooks.maxIdenticalReasons']]).toEqual([DEFAULT_STOP_LIMITS.maxContinuations, DEFAULT_STOP_LIMITS.maxIdenticalReasons])
})
