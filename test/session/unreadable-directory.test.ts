import { spawnSync } from 'node:child_process'
import { chmod, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Session } from '../../src/session/session.js'
import { JsonlStore } from '../../src/store/jsonl-store.js'
import { DIST } from '../support/cli.js'
import { appendTurn } from './conversation.js'

let home: string
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'rein-bad-'))
})
afterEach(async () => {
  await rm(home, { recursive: true, force: true })
})

// The load runs in a child process (as an unprivileged user when the tests run as root), which can only load the
// built code: this file is therefore in the slow project.
describe('loading from a directory without permission', () => {
  it('reports a directory without permission as one sentence, not a stack trace', async () => {
    const session = await Session.create(new JsonlStore(home), { cwd: '/repo' })
    appendTurn(session, 1, 'one')
    await session.close()
    const dir = dirname(session.path!)
    await chmod(home, 0o755)
    await chmod(dirname(dir), 0o755)
    await chmod(dir, 0o000)
    const script = `
      const { Session } = await import(${JSON.stringify(join(DIST, 'session/session.js'))})
      const { JsonlStore } = await import(${JSON.stringify(join(DIST, 'store/jsonl-store.js'))})
      try { await Session.load(new JsonlStore(${JSON.stringify(home)}), ${JSON.stringify(session.id)}); console.log('loaded') }
      catch (e) { console.log(e.name + ': ' + e.message) }`
    // Root reads any file regardless of mode, so the load runs as an unprivileged user when the tests run as root.
    const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {}
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', ...asUser })
    await chmod(dir, 0o700)
    expect(child.stdout.trim()).toBe(`SessionError: cannot read ${session.path}: permission denied; check its permissions.`)
  })
})
