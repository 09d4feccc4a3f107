import { cpSync, mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeAll, beforeEach } from 'vitest'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { reinEnv, requireBuiltCli, tempDir } from '../context/cli-support.js'

/** The realistic fixture: skills and custom commands in Claude Code's format, with frontmatter edge cases. */
export const FIXTURE = join(import.meta.dirname, '../fixtures/claude-project')

/** A fresh copy of the fixture project, a private REIN_HOME and a private user home (for ~/.claude). */
export function fixtureWorkspace(): { base: string; cwd: string; home: string; userHome: string } {
  const base = tempDir('rein-slash-')
  const cwd = join(base, 'project')
  const home = join(base, 'rein-home')
  const userHome = join(base, 'user')
  cpSync(FIXTURE, cwd, { recursive: true })
  mkdirSync(home, { recursive: true })
  mkdirSync(userHome, { recursive: true })
  return { base, cwd, home, userHome }
}

/** The CLI's environment against the mock, with HOME pointing at the private user home. */
export function envFor(mock: MockModel, ws: { home: string; userHome: string }): NodeJS.ProcessEnv {
  return { ...reinEnv(mock, ws.home), HOME: ws.userHome }
}

export type FixtureWorkspace = ReturnType<typeof fixtureWorkspace>

/**
 * For every test of the calling file: requires the built CLI, then gives each test a fresh fixture workspace and mock
 * model server (through `use`), and removes both after it.
 */
export function eachTestInFixture(use: (ws: FixtureWorkspace, mock: MockModel) => void): void {
  let current: { ws: FixtureWorkspace; mock: MockModel } | undefined
  beforeAll(requireBuiltCli)
  beforeEach(async () => {
    current = { ws: fixtureWorkspace(), mock: await startMockModel() }
    use(current.ws, current.mock)
  })
  afterEach(async () => {
    await current?.mock.close()
    if (current) rmSync(current.ws.base, { recursive: true, force: true })
    current = undefined
  })
}
