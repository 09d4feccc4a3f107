import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { loadSettingsReport, SettingsError } from '../../src/config/settings.js'
import { settingsGrants } from '../../src/config/trust-report.js'

let root: string
let cwd: string
let home: string

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'rein-titles-setting-')))
  cwd = path.join(root, 'project')
  home = path.join(root, 'rein-home')
  mkdirSync(path.join(cwd, '.rein'), { recursive: true })
  mkdirSync(home, { recursive: true })
})
afterEach(() => rmSync(root, { recursive: true, force: true }))

const userFile = () => path.join(home, 'settings.json')
const projectFile = () => path.join(cwd, '.rein', 'settings.json')
const localFile = () => path.join(cwd, '.rein', 'settings.local.json')
const put = (file: string, value: unknown) => writeFileSync(file, JSON.stringify(value))

describe('the sessionTitles setting', () => {
  it('is off by default: no file sets it, so titles come from the first prompt', () => {
    expect(loadSettingsReport(cwd, home).settings.sessionTitles).toBeUndefined()
  })

  it("is turned on by the user's own file", () => {
    put(userFile(), { sessionTitles: 'model' })
    expect(loadSettingsReport(cwd, home).settings.sessionTitles).toBe('model')
  })

  it('cannot be turned on by an untrusted project or local file, and the ignored value is named', () => {
    put(projectFile(), { sessionTitles: 'model' })
    put(localFile(), { sessionTitles: 'model' })
    const { settings, ignoredLimits } = loadSettingsReport(cwd, home)
    expect(settings.sessionTitles).toBeUndefined()
    expect(ignoredLimits.map((i) => [i.name, i.value])).toEqual([
      ['sessionTitles', 'model'],
      ['sessionTitles', 'model'],
    ])
  })

  it('is turned on by a project file once the workspace is trusted, and trust lists it as a grant', () => {
    put(projectFile(), { sessionTitles: 'model' })
    expect(loadSettingsReport(cwd, home, { workspaceTrusted: true }).settings.sessionTitles).toBe('model')
    expect(settingsGrants({ sessionTitles: 'model' }, projectFile()).map((g) => g.label)).toEqual(['sessionTitles "model"'])
  })

  it("can be turned off by an untrusted project file, over the user's on", () => {
    put(userFile(), { sessionTitles: 'model' })
    put(projectFile(), { sessionTitles: 'prompt' })
    const { settings, ignoredLimits } = loadSettingsReport(cwd, home)
    expect(settings.sessionTitles).toBe('prompt')
    expect(ignoredLimits).toEqual([])
  })

  it('refuses a value it does not know, naming the file and line', () => {
    put(userFile(), { sessionTitles: true })
    expect(() => loadSettingsReport(cwd, home)).toThrow(SettingsError)
    expect(() => loadSettingsReport(cwd, home)).toThrow(/sessionTitles/)
  })
})
