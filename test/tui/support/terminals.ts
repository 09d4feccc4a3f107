import { afterEach, beforeAll } from 'vitest'
import { CLI } from '../../support/cli.js'
import type { MockModel } from '../../support/mock-model.js'
import { requireBuild, requireTmux, type Terminal } from './tmux.js'

/** What a test opened: push each terminal and mock model here, and they are closed after the test whatever happened. */
export interface Opened {
  terminals: Terminal[]
  mocks: MockModel[]
}

/**
 * The set-up every terminal UI test file shares: it fails at once without tmux or the build, and closes what each test
 * opened. Call at the top level of a test file.
 */
export function terminalsClosedAfterEachTest(): Opened {
  const opened: Opened = { terminals: [], mocks: [] }
  beforeAll(() => {
    requireTmux()
    requireBuild(CLI)
  })
  afterEach(async () => {
    for (const t of opened.terminals.splice(0)) t.close()
    for (const m of opened.mocks.splice(0)) await m.close()
  })
  return opened
}
