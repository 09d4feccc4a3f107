import { afterEach, describe, expect, it } from 'vitest'
import { readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { raw, startWeb, type WebRun } from '../web/support.js'

let mock: MockModel | undefined
let web: WebRun | undefined
afterEach(async () => {
  await mock?.close()
  await web?.stop()
  mock = undefined
  web = undefined
})

/** One `rein -p` run whose second step edits, deletes and creates files with bash; returns the sandbox and session id. */
async function runChangingStep(): Promise<{ box: ReturnType<typeof sandbox>; id: string }> {
  const box = sandbox()
  writeFileSync(join(box.cwd, 'a.txt'), 'one\n')
  writeFileSync(join(box.cwd, 'b.txt'), 'gone soon\n')
  mock = await startMockModel({
    script: [
      { toolCalls: [{ name: 'read', arguments: { path: 'a.txt' } }] },
      { toolCalls: [{ name: 'bash', arguments: { command: "sed -i 's/one/two/' a.txt; rm b.txt; echo new > c.txt" } }] },
      { text: 'Done.' },
    ],
  })
  const r = await runCli(['-p', 'change things', '--permission-mode', 'bypass'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
  expect(r.code).toBe(0)
  const [dir] = readdirSync(join(box.home, 'sessions'))
  const [file] = readdirSync(join(box.home, 'sessions', dir)).filter((f) => f.endsWith('.jsonl'))
  return { box, id: file.replace(/\.jsonl$/, '') }
}

describe('what a step changed, in sessions show and the Markdown export', () => {
  it('sessions show lists the changed paths with their kind after the step’s tool result', async () => {
    const { box, id } = await runChangingStep()
    const shown = await runCli(['sessions', 'show', id], { cwd: box.cwd, env: cliEnv({ home: box.home }) })
    expect(shown.code).toBe(0)
    const lines = shown.stdout.split('\n')
    const changed = lines.indexOf('changed: a.txt (modified), b.txt (deleted), c.txt (added)')
    expect(changed).toBeGreaterThan(lines.findIndex((l) => l.startsWith('← bash')))
    expect(lines.filter((l) => l.startsWith('changed:'))).toHaveLength(1)
  })

  it('sessions show tells of a rewind and of its undo in one line each', async () => {
    const { box, id } = await runChangingStep()
    const env = cliEnv({ home: box.home })
    expect((await runCli(['rewind', id, '--to', '1', '--code'], { cwd: box.cwd, env })).code).toBe(0)
    expect((await runCli(['rewind', id, '--undo'], { cwd: box.cwd, env })).code).toBe(0)
    const shown = await runCli(['sessions', 'show', id], { cwd: box.cwd, env })
    expect(shown.stdout).toContain('[rewind] Rewound to the start of turn 1: 3 files restored.')
    expect(shown.stdout).toContain('[rewind] Undid a rewind: 3 files back as they were before it.')
  })

  it('the Markdown export names the changed files under the step', async () => {
    const { box, id } = await runChangingStep()
    const md = await runCli(['sessions', 'export', id, '--format', 'md'], { cwd: box.cwd, env: cliEnv({ home: box.home }) })
    expect(md.stdout).toContain('*Changed: `a.txt` (modified), `b.txt` (deleted), `c.txt` (added)*')
    expect(md.stdout.indexOf('*Changed:')).toBeGreaterThan(md.stdout.indexOf('**Tool result** `bash`'))
  })
})

describe('a step’s diff in the web API', () => {
  it('returns the unified diff of one step, before it against the workspace when no later snapshot exists', async () => {
    const { box, id } = await runChangingStep()
    web = await startWeb({ box })
    const auth = { authorization: `Bearer ${web.token}` }
    const r = await raw(web.origin, `/api/sessions/${id}/steps/1/2/diff`, { headers: auth })
    expect(r.status).toBe(200)
    const body = r.json() as { diff: string; after: string; paths: unknown[]; omitted: string[] }
    expect(body.after).toBe('workspace')
    expect(body.paths).toEqual([
      { path: 'a.txt', kind: 'modified' },
      { path: 'b.txt', kind: 'deleted' },
      { path: 'c.txt', kind: 'added' },
    ])
    expect(body.diff).toContain('--- a/a.txt\n+++ b/a.txt')
    expect(body.diff).toContain('-one\n+two')
    expect(body.diff).toContain('--- a/b.txt\n+++ /dev/null')
    expect(body.diff).toContain('-gone soon')
    expect(body.diff).toContain('--- /dev/null\n+++ b/c.txt')
    expect(body.diff).toContain('+new')
  })

  it('says in one sentence that a pruned snapshot leaves only the paths', async () => {
    const { box, id } = await runChangingStep()
    rmSync(join(box.home, 'checkpoints'), { recursive: true, force: true })
    web = await startWeb({ box })
    const r = await raw(web.origin, `/api/sessions/${id}/steps/1/2/diff`, { headers: { authorization: `Bearer ${web.token}` } })
    expect(r.status).toBe(409)
    expect(r.json().error).toBe('The snapshot of turn 1 step 2 is no longer stored (pruned, or another REIN_HOME); the changed paths are all that is left.')
  })

  it('refuses a step that changed nothing, a turn that is not a number, and a request without the token, each in one sentence', async () => {
    const { box, id } = await runChangingStep()
    web = await startWeb({ box })
    const auth = { authorization: `Bearer ${web.token}` }
    const none = await raw(web.origin, `/api/sessions/${id}/steps/1/1/diff`, { headers: auth })
    expect(none.status).toBe(404)
    expect(none.json().error).toBe('Step 1 of turn 1 logged no changes to the workspace.')
    const bad = await raw(web.origin, `/api/sessions/${id}/steps/x/1/diff`, { headers: auth })
    expect(bad.status).toBe(400)
    expect(bad.json().error).toBe('The turn must be a whole number.')
    const anonymous = await raw(web.origin, `/api/sessions/${id}/steps/1/2/diff`)
    expect(anonymous.status).toBe(401)
  })
})
