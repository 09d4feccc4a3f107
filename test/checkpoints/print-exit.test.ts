import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { shadowRepository } from '../../src/checkpoints/retention-schedule.js'
import type { SessionEvent } from '../../src/session/events.js'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { eventsOf } from '../support/events.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { shadow } from './shadow-support.js'

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

/**
 * A `git` first on PATH whose `git add` in a shadow repository (`--git-dir`) waits `seconds` before running the real
 * one, and logs `add started`, then `add finished` or, when it is sent SIGTERM meanwhile, `add stopped`.
 */
function slowAddGit(root: string, seconds: number): { path: string; log: () => string[] } {
  const bin = join(root, 'bin')
  const log = join(root, 'git.log')
  mkdirSync(bin)
  writeFileSync(log, '')
  const real = execFileSync('bash', ['-c', 'command -v git']).toString().trim()
  const script = `#!/bin/sh
case " $* " in
  *" --git-dir "*" add "*)
    # The trap and the sleep first, then the log line; the sleep holds none of git's pipes.
    trap 'echo "add stopped" >> "${log}"; kill $pid 2>/dev/null; exit 143' TERM
    sleep ${seconds} >/dev/null 2>&1 </dev/null & pid=$!
    echo "add started" >> '${log}'
    wait $pid
    echo "add finished" >> '${log}' ;;
esac
exec '${real}' "$@"
`
  writeFileSync(join(bin, 'git'), script)
  chmodSync(join(bin, 'git'), 0o755)
  return { path: `${bin}:${process.env.PATH}`, log: () => readFileSync(log, 'utf8').split('\n').filter(Boolean) }
}

function events(home: string): SessionEvent[] {
  const root = join(home, 'sessions')
  const [dir] = readdirSync(root)
  const files = readdirSync(join(root, dir)).filter((f) => f.endsWith('.jsonl'))
  return files.flatMap((file) =>
    readFileSync(join(root, dir, file), 'utf8')
      .split('\n')
      .filter(Boolean)
      .slice(1)
      .map((line) => JSON.parse(line) as SessionEvent),
  )
}

function locksIn(gitDir: string): string[] {
  const found: string[] = []
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name))
      else if (entry.name.endsWith('.lock')) found.push(join(dir, entry.name))
    }
  }
  walk(gitDir)
  return found
}

describe('rein -p exits when its work is done', () => {
  it('a read-only run stops the first staging no mutating step needed, leaving the shadow repository intact, and the next run redoes it', async () => {
    const box = sandbox()
    writeFileSync(join(box.cwd, 'a.txt'), 'one\n')
    const git = slowAddGit(box.root, 600)
    // The answer waits a moment so the background staging has reached its `git add` when the turn ends.
    mock = await startMockModel({ script: [{ toolCalls: [{ name: 'read', arguments: { file_path: 'a.txt' } }] }, { text: 'Done.', delayMs: 4000 }] })
    const r = await runCli(['-p', 'look', '--permission-mode', 'bypass'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home, extra: { PATH: git.path } }) })
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    // The process exited before the slow add could finish: it was stopped, not waited for.
    expect(git.log()).toEqual(['add started', 'add stopped'])
    expect(eventsOf(events(box.home), 'turn/end').map((e) => e.data.reason)).toEqual(['completed'])
    const gitDir = shadowRepository(box.home, box.cwd)
    expect(locksIn(gitDir)).toEqual([])
    expect(() => shadow(gitDir, 'fsck', '--no-dangling')).not.toThrow()

    // The next run (real git) takes the first snapshot afresh before its mutating step.
    await mock.close()
    mock = await startMockModel({ script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo two > b.txt' } }] }, { text: 'Done.' }] })
    const again = await runCli(['-p', 'write', '--permission-mode', 'bypass'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(again.code).toBe(0)
    const [created] = eventsOf(events(box.home), 'checkpoint/created')
    expect(created.data.commit).toMatch(/^[0-9a-f]{40}$/)
    expect(shadow(gitDir, 'ls-tree', '-r', '--name-only', created.data.commit ?? '')).toBe('a.txt')
    expect(locksIn(gitDir)).toEqual([])
  })

  it('a mutating step still waits for its snapshot behind a slow first staging, which then holds the workspace before the step', async () => {
    const box = sandbox()
    writeFileSync(join(box.cwd, 'a.txt'), 'one\n')
    const git = slowAddGit(box.root, 2)
    mock = await startMockModel({ script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo two > b.txt' } }] }, { text: 'Done.' }] })
    const r = await runCli(['-p', 'write', '--permission-mode', 'bypass'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home, extra: { PATH: git.path } }) })
    expect(r.code).toBe(0)
    expect(git.log()).toEqual(['add started', 'add finished'])
    const log = events(box.home)
    const [created] = eventsOf(log, 'checkpoint/created')
    expect(created.data.error).toBeUndefined()
    const gitDir = shadowRepository(box.home, box.cwd)
    expect(shadow(gitDir, 'ls-tree', '-r', '--name-only', created.data.commit ?? '')).toBe('a.txt')
    expect(eventsOf(log, 'checkpoint/changes')[0].data.paths).toEqual([{ path: 'b.txt', kind: 'added' }])
    expect(existsSync(join(box.cwd, 'b.txt'))).toBe(true)
  })
})
