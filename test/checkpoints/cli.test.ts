import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { SessionEvent } from '../../src/session/events.js'
import { RETENTION_STAMP, shadowRepository } from '../../src/checkpoints/retention-schedule.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { ageObjects, backdate, fingerprint, hasObject, sessionRefs, shadow } from './shadow-support.js'

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

type Box = ReturnType<typeof sandbox>

/** Runs one `rein -p` whose single step runs `command` in bash; returns the new session's id. */
async function agentRun(box: Box, command: string): Promise<string> {
  const before = new Set(sessionIds(box))
  mock = await startMockModel({ script: [{ toolCalls: [{ name: 'bash', arguments: { command } }] }, { text: 'Done.' }] })
  const r = await runCli(['-p', 'change things', '--permission-mode', 'bypass'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
  await mock.close()
  mock = undefined
  expect(r.stderr).toBe('')
  expect(r.code).toBe(0)
  const fresh = sessionIds(box).filter((id) => !before.has(id))
  expect(fresh).toHaveLength(1)
  return fresh[0]
}

function sessionIds(box: Box): string[] {
  const root = join(box.home, 'sessions')
  if (!existsSync(root)) return []
  return readdirSync(root).flatMap((dir) => readdirSync(join(root, dir)).filter((f) => f.endsWith('.jsonl')).map((f) => f.slice(0, -'.jsonl'.length)))
}

function events(box: Box, id: string): SessionEvent[] {
  const root = join(box.home, 'sessions')
  const [dir] = readdirSync(root)
  return readFileSync(join(root, dir, `${id}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .slice(1)
    .map((line) => JSON.parse(line) as SessionEvent)
}

function rein(box: Box, ...args: string[]) {
  return runCli(args, { cwd: box.cwd, env: cliEnv({ home: box.home }) })
}

function settings(box: Box, checkpoints: Record<string, unknown>): void {
  writeFileSync(join(box.home, 'settings.json'), JSON.stringify({ checkpoints }))
}

describe('rein checkpoints list', () => {
  it('lists each step with a snapshot: turn, step, short commit, files, the paths it changed and what it skipped', async () => {
    const box = sandbox()
    settings(box, { maxFileBytes: 1000 })
    writeFileSync(join(box.cwd, 'a.txt'), 'one\n')
    writeFileSync(join(box.cwd, 'b.txt'), 'gone soon\n')
    writeFileSync(join(box.cwd, 'big.bin'), Buffer.alloc(4096, 7))
    const id = await agentRun(box, "sed -i 's/one/two/' a.txt; rm b.txt; echo new > c.txt")
    const commit = events(box, id).find((e) => e.type === 'checkpoint/created')?.data as { commit: string }

    const text = await rein(box, 'checkpoints', 'list', id.slice(0, 8))
    expect(text.stderr).toBe('')
    expect(text.code).toBe(0)
    expect(text.stdout).toBe(
      [
        `turn 1 step 1  ${commit.commit.slice(0, 8)}  2 files`,
        '  modified a.txt',
        '  deleted  b.txt',
        '  added    c.txt',
        '  skipped  big.bin (over the size limit, 4.0 KiB)',
        '',
      ].join('\n'),
    )

    const json = await rein(box, 'checkpoints', 'list', id, '--json')
    const parsed = JSON.parse(json.stdout) as { session: string; steps: { commit: string; available: boolean; changes: unknown[]; skipped: unknown[] }[] }
    expect(parsed.session).toBe(id)
    expect(parsed.steps).toHaveLength(1)
    expect(parsed.steps[0]).toMatchObject({ turn: 1, step: 1, commit: commit.commit, files: 2, available: true })
    expect(parsed.steps[0].changes).toEqual([
      { path: 'a.txt', kind: 'modified' },
      { path: 'b.txt', kind: 'deleted' },
      { path: 'c.txt', kind: 'added' },
    ])
    expect(parsed.steps[0].skipped).toEqual([{ path: 'big.bin', reason: 'too-large', bytes: 4096 }])
  })

  it('with no session prints a short table of each workspace: sessions, snapshots and disk use', async () => {
    const box = sandbox()
    await agentRun(box, 'echo one > one.txt')
    await agentRun(box, 'echo two > two.txt')
    const r = await rein(box, 'checkpoints', 'list')
    expect(r.code).toBe(0)
    const [head, row, end] = r.stdout.split('\n')
    expect(head).toMatch(/^WORKSPACE\s+SESSIONS\s+SNAPSHOTS\s+DISK\s+NEWEST$/)
    expect(row).toMatch(new RegExp(`^${box.cwd.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s+2\\s+2\\s+\\d+\\.\\d (KiB|MiB)\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d$`))
    expect(end).toBe('')
  })

  it('says a session without snapshots has none', async () => {
    const box = sandbox()
    mock = await startMockModel({ script: [{ text: 'Hello.' }] })
    const run = await runCli(['-p', 'hi'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(run.code).toBe(0)
    const [id] = sessionIds(box)
    const r = await rein(box, 'checkpoints', 'list', id)
    expect(r.stdout).toBe(`Session ${id} has no checkpoints: none of its steps changed the workspace.\n`)
  })

  it.each([['../../etc/passwd'], ['no-such-session']])('refuses the session %s in one sentence and exits 1', async (name) => {
    const box = sandbox()
    await agentRun(box, 'echo x > x.txt')
    const gitDir = shadowRepository(box.home, box.cwd)
    const before = fingerprint(gitDir)
    const r = await rein(box, 'checkpoints', 'list', name)
    expect(r.code).toBe(1)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(/^rein: no session id starts with ".*"; run `rein sessions list --all` to see the ids\.\n$/)
    expect(fingerprint(gitDir)).toEqual(before)
  })

  it('says in one sentence that the snapshots are gone when the shadow repository was deleted, and exits 1', async () => {
    const box = sandbox()
    const id = await agentRun(box, 'echo x > x.txt')
    const gitDir = shadowRepository(box.home, box.cwd)
    rmSync(gitDir, { recursive: true })
    const r = await rein(box, 'checkpoints', 'list', id)
    expect(r.code).toBe(1)
    expect(r.stderr).toBe(`rein: The checkpoint repository ${gitDir} no longer exists, so the snapshots it held cannot be restored.\n`)
    expect(existsSync(gitDir)).toBe(false)
  })
})

describe('rein checkpoints prune', () => {
  it("removes the snapshots retention no longer keeps, says what it freed, and leaves the user's .git byte-identical", async () => {
    const box = sandbox()
    shadow(join(box.cwd, '.git'), 'init', '--quiet')
    writeFileSync(join(box.cwd, 'tracked.txt'), 'tracked\n')
    shadow(join(box.cwd, '.git'), `--work-tree=${box.cwd}`, 'add', 'tracked.txt')
    shadow(join(box.cwd, '.git'), `--work-tree=${box.cwd}`, 'commit', '--quiet', '-m', 'user commit')
    const userGit = fingerprint(join(box.cwd, '.git'))
    settings(box, { keepSessions: 1, keepDays: 30 })
    const old = await agentRun(box, 'echo first > first.txt')
    const recent = await agentRun(box, 'echo second > second.txt')
    const gitDir = shadowRepository(box.home, box.cwd)
    const oldCommit = backdate(gitDir, `refs/rein/sessions/${old}`, 45)
    ageObjects(gitDir, 45)

    const dry = await rein(box, 'checkpoints', 'prune', '--dry-run')
    expect(dry.code).toBe(0)
    expect(dry.stdout).toBe(`${box.cwd}: would remove the snapshots of 1 session (${old.slice(0, 8)}); 1 session kept.\n`)
    expect(sessionRefs(gitDir)).toHaveLength(2)

    const r = await rein(box, 'checkpoints', 'prune')
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(new RegExp(`^.*: removed the snapshots of 1 session \\(${old.slice(0, 8)}\\); 1 session kept; freed \\d+(\\.\\d)? (B|KiB|MiB)\\.\\n$`))
    expect(sessionRefs(gitDir)).toEqual([`refs/rein/sessions/${recent}`])
    expect(hasObject(gitDir, oldCommit)).toBe(false)

    expect((await rein(box, 'checkpoints', 'list', old)).stdout).toContain('(pruned: cannot be restored)')
    expect((await rein(box, 'checkpoints', 'list', recent)).stdout).not.toContain('pruned')
    expect(fingerprint(join(box.cwd, '.git'))).toEqual(userGit)

    const again = await rein(box, 'checkpoints', 'prune', '--json')
    expect(JSON.parse(again.stdout)).toMatchObject([{ workspace: box.cwd, removed: [], kept: [{ session: recent }] }])
  })

  it('says there is nothing to prune in a workspace without checkpoints, and creates nothing', async () => {
    const box = sandbox()
    const r = await rein(box, 'checkpoints', 'prune')
    expect(r.code).toBe(0)
    expect(r.stdout).toBe(`No checkpoints for ${box.cwd}; nothing to prune.\n`)
    expect(existsSync(join(box.home, 'checkpoints'))).toBe(false)
  })

  it('names a corrupt shadow repository in one sentence, exits 1 and changes nothing in it', async () => {
    const box = sandbox()
    await agentRun(box, 'echo x > x.txt')
    const gitDir = shadowRepository(box.home, box.cwd)
    writeFileSync(join(gitDir, 'HEAD'), 'not a ref\n')
    const before = fingerprint(gitDir)
    const r = await rein(box, 'checkpoints', 'prune')
    expect(r.code).toBe(1)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(/^rein: The checkpoint repository .* is damaged \(.*\); delete that directory to start afresh \(its snapshots cannot be restored\)\.\n$/)
    expect(fingerprint(gitDir)).toEqual(before)
  })

  it('--all-workspaces prunes every workspace and names a damaged one without stopping', async () => {
    const box = sandbox()
    settings(box, { keepSessions: 0, keepDays: 30 })
    const old = await agentRun(box, 'echo x > x.txt')
    const gitDir = shadowRepository(box.home, box.cwd)
    backdate(gitDir, `refs/rein/sessions/${old}`, 90)
    // A second workspace's repository whose HEAD git cannot read.
    const broken = shadowRepository(box.home, sandbox().cwd)
    shadow(broken, 'init', '--quiet', '--bare')
    writeFileSync(join(broken, 'HEAD'), 'garbage\n')

    const r = await rein(box, 'checkpoints', 'prune', '--all-workspaces')
    expect(r.code).toBe(1)
    expect(r.stdout).toMatch(new RegExp(`: removed the snapshots of 1 session \\(${old.slice(0, 8)}\\); 0 sessions kept; freed `))
    expect(r.stderr).toMatch(/^rein: The checkpoint repository .* is damaged/)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(sessionRefs(gitDir)).toEqual([])
  })
})

describe('checkpoints settings, end to end', () => {
  it('with checkpoints.enabled false a mutating step takes no snapshot and no shadow repository is created', async () => {
    const box = sandbox()
    settings(box, { enabled: false })
    const id = await agentRun(box, 'echo x > x.txt')
    expect(readFileSync(join(box.cwd, 'x.txt'), 'utf8')).toBe('x\n')
    expect(existsSync(join(box.home, 'checkpoints'))).toBe(false)
    expect(events(box, id).filter((e) => e.type.startsWith('checkpoint/'))).toEqual([])
  })

  it('a bad checkpoints value stops Rein with one sentence naming the file and line', async () => {
    const box = sandbox()
    writeFileSync(join(box.home, 'settings.json'), '{\n  "checkpoints": {\n    "keepDays": "forever"\n  }\n}\n')
    const r = await runCli(['-p', 'hi'], { cwd: box.cwd, env: cliEnv({ url: 'http://127.0.0.1:9', home: box.home }) })
    expect(r.code).not.toBe(0)
    expect(r.stderr).toMatch(new RegExp(`${join(box.home, 'settings.json').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, line 3: checkpoints\\.keepDays: .*Fix it and start Rein again\\.`))
    expect(existsSync(join(box.home, 'sessions'))).toBe(false)
  })

  it('opening a session when retention is due prunes stale sessions in the background, keeping the one it opened', async () => {
    const box = sandbox()
    settings(box, { keepSessions: 0, keepDays: 30 })
    const stale = await agentRun(box, 'echo one > one.txt')
    const gitDir = shadowRepository(box.home, box.cwd)
    backdate(gitDir, `refs/rein/sessions/${stale}`, 60)
    rmSync(join(gitDir, RETENTION_STAMP), { force: true })
    const opened = await agentRun(box, 'echo two > two.txt')
    expect(sessionRefs(gitDir)).toEqual([`refs/rein/sessions/${opened}`])
    expect(Number(readFileSync(join(gitDir, RETENTION_STAMP), 'utf8'))).toBeGreaterThan(0)
  })
})
