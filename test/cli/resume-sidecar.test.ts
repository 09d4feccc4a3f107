import { cpSync, mkdirSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { SUMMARY_REQUEST } from '../compaction/support.js'

const STEPS = 40
/** Small enough that the session compacts, so its surface is a fraction of its log. */
const WINDOW = 12_000

/** The one session file of a REIN_HOME and its sidecar. */
function sessionFiles(home: string): { id: string; log: string; sidecar: string } {
  const root = join(home, 'sessions')
  const dir = join(root, readdirSync(root)[0])
  const file = readdirSync(dir).find((f) => f.endsWith('.jsonl'))!
  return { id: file.replace(/\.jsonl$/, ''), log: join(dir, file), sidecar: join(dir, `${file}.resume`) }
}

describe('rein -p --resume of a compacted session, through the built CLI', () => {
  const box = sandbox()
  /** A copy of the same home without the sidecar: what a full read gives. */
  const plainHome = join(box.root, 'plain-home')
  let mock: MockModel
  let id: string
  const rein = (args: string[], home = box.home) => runCli(args, { cwd: box.cwd, env: cliEnv({ url: mock.url, home }) })
  const lastBody = (): string => JSON.stringify(mock.requests.at(-1)?.body)

  beforeAll(async () => {
    mkdirSync(join(box.cwd, '.git'))
    mkdirSync(join(box.cwd, '.rein'))
    writeFileSync(join(box.cwd, '.rein', 'settings.json'), JSON.stringify({ models: { 'deepseek-flash': { contextWindow: WINDOW } } }))
    for (let i = 0; i < STEPS; i++) writeFileSync(join(box.cwd, `file${i}.ts`), `export const value${i} = ${i} // a line of padding\n`.repeat(12))
    const script = [
      { match: SUMMARY_REQUEST, repeat: true, text: 'The user asked to read every file; all were read. Next: nothing.' },
      ...Array.from({ length: STEPS }, (_, i) => ({ toolCalls: [{ name: 'read', arguments: { file_path: `file${i}.ts` } }] })),
      { text: 'Read them all.' },
      { match: 'what next', text: 'Nothing more.', repeat: true },
    ]
    mock = await startMockModel({ script })
    const first = await rein(['-p', 'Read every file.'])
    expect(first.code).toBe(0)
    id = sessionFiles(box.home).id
    cpSync(box.home, plainHome, { recursive: true })
    rmSync(sessionFiles(plainHome).sidecar, { force: true })
  }, 120_000)

  afterAll(async () => {
    await mock?.close()
  })

  it('compaction left a sidecar much smaller than the log', () => {
    const files = sessionFiles(box.home)
    expect(statSync(files.sidecar).size).toBeLessThan(statSync(files.log).size / 2)
  })

  it('sends the model exactly the request a full read of the log gives', async () => {
    const fromSidecar = await rein(['-p', 'what next?', '--resume', id])
    expect(fromSidecar).toMatchObject({ code: 0, stderr: '', stdout: 'Nothing more.\n' })
    const viaSidecar = lastBody()
    const full = await rein(['-p', 'what next?', '--resume', id], plainHome)
    expect(full).toMatchObject({ code: 0, stderr: '' })
    expect(viaSidecar).toBe(lastBody())
  })

  it('sessions verify finds sidecar and log in agreement', async () => {
    const verify = await rein(['sessions', 'verify', id])
    expect(verify.code).toBe(0)
    expect(verify.stdout).not.toContain('sidecar')
    expect(verify.stdout).toMatch(/no problems/)
  })

  it('a truncated sidecar is ignored without a word: the resume reads the whole log, and verify notes it', async () => {
    const files = sessionFiles(box.home)
    truncateSync(files.sidecar, Math.floor(statSync(files.sidecar).size / 2))
    const resumed = await rein(['-p', 'what next now?', '--resume', id])
    expect(resumed).toMatchObject({ code: 0, stderr: '', stdout: 'Nothing more.\n' })
    const damaged = lastBody()
    await rein(['-p', 'what next now?', '--resume', id], plainHome)
    expect(damaged).toBe(lastBody())

    const verify = await rein(['sessions', 'verify', id])
    expect(verify.code).toBe(0)
    expect(verify.stdout).toMatch(/^note: sidecar: the resume sidecar .*\.resume disagrees with the log \(it is truncated\); resume ignores it and reads the whole log\.$/m)
  })
})
