import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createInterface } from 'node:readline'
import { cliEnv, runCli, sandbox, spawnCli, type CliResult } from '../support/cli.js'
import { startMockModel, type MockModel, type MockResponse, type RecordedRequest } from '../support/mock-model.js'
import { contentText, SUMMARY_FRAME, SUMMARY_REQUEST } from './support.js'

const STEPS = 60
/** Small enough that the 60-step session compacts twice (the built-in prefix alone is ~1,700 tokens). */
const WINDOW = 12_000

/** The project's AGENTS.md: the workspace-context producer must re-send it once a summary shadows it. */
const PROJECT_RULE = 'Project rule: never edit generated files.'

type Body = { messages: { role: string; content: unknown }[] }
type LoggedEvent = { seq: number; type: string; data: Record<string, unknown>; surfaceOp?: unknown }
const bodyOf = (r: RecordedRequest): Body => r.body as Body
const isSummaryRequest = (r: RecordedRequest): boolean => contentText(bodyOf(r).messages.at(-1)?.content).startsWith(SUMMARY_REQUEST)

/** A project with `files` source files and a settings file giving the default model a `WINDOW`-token window. */
function project(files: number, model: Record<string, unknown> = {}): ReturnType<typeof sandbox> {
  const box = sandbox()
  mkdirSync(join(box.cwd, '.git'))
  mkdirSync(join(box.cwd, '.rein'))
  writeFileSync(join(box.cwd, '.rein', 'settings.json'), JSON.stringify({ models: { 'deepseek-flash': { contextWindow: WINDOW, ...model } } }))
  writeFileSync(join(box.cwd, 'AGENTS.md'), `${PROJECT_RULE}\n`)
  for (let i = 0; i < files; i++) writeFileSync(join(box.cwd, `file${i}.ts`), `export const value${i} = ${i} // a line of padding\n`.repeat(12))
  return box
}

/** One read per step, then an answer; the summary request is answered wherever it comes. */
function readingScript(reads: number, summary: MockResponse = { text: 'The user asked to read every file; the files read so far were unchanged. Next: read the rest.' }): MockResponse[] {
  const script: MockResponse[] = [{ match: SUMMARY_REQUEST, repeat: true, ...summary }]
  for (let i = 0; i < reads; i++) script.push({ toolCalls: [{ name: 'read', arguments: { file_path: `file${i}.ts` } }] })
  script.push({ text: 'Read them all.' })
  return script
}

function sessionLog(home: string): { id: string; events: LoggedEvent[] } {
  const root = join(home, 'sessions')
  const dir = join(root, readdirSync(root)[0])
  const file = readdirSync(dir).find((f) => f.endsWith('.jsonl'))!
  const events = readFileSync(join(dir, file), 'utf8').trim().split('\n').slice(1).map((line) => JSON.parse(line) as LoggedEvent)
  return { id: file.replace(/\.jsonl$/, ''), events }
}

describe('a 60-step session in a small context window, through the built CLI', () => {
  let box: ReturnType<typeof sandbox>
  let mock: MockModel
  let run: CliResult
  let log: { id: string; events: LoggedEvent[] }
  const rein = (args: string[]) => runCli(args, { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })

  beforeAll(async () => {
    box = project(STEPS)
    mock = await startMockModel({ script: readingScript(STEPS - 1) })
    run = await rein(['-p', 'Read every file.'])
    log = sessionLog(box.home)
  }, 60_000)
  afterAll(async () => {
    await mock.close()
  })

  it('completes all 60 steps and compacts automatically on the way', () => {
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain('Read them all.')
    expect(mock.requests.filter((r) => !isSummaryRequest(r))).toHaveLength(STEPS)
    const ends = log.events.filter((e) => e.type === 'compaction/end')
    expect(ends.length).toBeGreaterThanOrEqual(1)
    expect(ends.every((e) => e.data.outcome === 'replaced')).toBe(true)
    expect(log.events.filter((e) => e.type === 'compaction/start').every((e) => e.data.trigger === 'auto')).toBe(true)
  })

  it('keeps every prompt under the threshold the window sets', () => {
    const threshold = WINDOW * 0.8
    for (const r of mock.requests) expect(r.promptTokens!).toBeLessThan(threshold + 400)
  })

  it('sends the next request with the summary where the shadowed messages were, and fewer messages', () => {
    const k = mock.requests.findIndex(isSummaryRequest)
    const before = bodyOf(mock.requests[k - 1])
    const after = bodyOf(mock.requests[k + 1])
    expect(after.messages[0].role).toBe('system')
    expect(after.messages[1].role).toBe('user')
    expect(contentText(after.messages[1].content).startsWith(SUMMARY_FRAME)).toBe(true)
    expect(contentText(after.messages[1].content)).toContain('The user asked to read every file')
    expect(after.messages.length).toBeLessThan(before.messages.length)
    expect(mock.requests[k + 1].promptTokens!).toBeLessThan(mock.requests[k - 1].promptTokens! / 2)
    const shadowed = bodyOf(mock.requests[k]).messages.length - 1
    const kept = before.messages.slice(shadowed)
    expect(JSON.stringify(after.messages.slice(2, 2 + kept.length))).toBe(JSON.stringify(kept))
  })

  it('re-sends the workspace instructions and session facts the summary shadowed with the very next request', () => {
    const texts = (r: RecordedRequest) => bodyOf(r).messages.map((m) => contentText(m.content))
    const k = mock.requests.findIndex(isSummaryRequest)
    expect(texts(mock.requests[k]).filter((t) => t.includes(PROJECT_RULE))).toHaveLength(1)
    const next = texts(mock.requests[k + 1])
    expect(next.filter((t) => t.includes(PROJECT_RULE))).toHaveLength(1)
    expect(next.filter((t) => t.includes('Current session facts'))).toHaveLength(1)
  })

  it('asks for the summary with the previous request as its prefix, so the mock serves it from cache', () => {
    const summaries = mock.requests.map((r, i) => [r, i] as const).filter(([r]) => isSummaryRequest(r))
    for (const [r, i] of summaries) {
      const messages = bodyOf(r).messages
      const previous = bodyOf(mock.requests[i - 1]).messages
      expect(JSON.stringify(messages.slice(0, -1))).toBe(JSON.stringify(previous.slice(0, messages.length - 1)))
      expect(JSON.stringify(r.body && (r.body as { tools: unknown }).tools)).toBe(JSON.stringify((mock.requests[i - 1].body as { tools: unknown }).tools))
      expect(r.cacheHitTokens! / r.promptTokens!).toBeGreaterThan(0.9)
    }
  })

  it('passes rein sessions verify, compaction requests included', async () => {
    const verify = await rein(['sessions', 'verify', log.id])
    expect(verify.code, verify.stdout + verify.stderr).toBe(0)
    expect(verify.stdout + verify.stderr).not.toContain('does not match')
    expect(verify.stdout).toContain('no problems')
  })

  it('still shows the full history in rein sessions show, with the summary marked as replacing seqs', async () => {
    const show = await rein(['sessions', 'show', log.id])
    expect(show.code).toBe(0)
    expect(show.stdout).toContain('> Read every file.')
    for (const i of [0, 1, 30, STEPS - 2]) expect(show.stdout).toContain(`→ read {"file_path":"file${i}.ts"}`)
    expect(show.stdout).toContain('This is a summary of the earlier part of this session')
    expect(show.stdout).toMatch(/replaces seqs \d+–\d+/)
  })

  it('keeps working after --resume, starting from the summary', async () => {
    const before = mock.requests.length
    mock.push({ text: 'Resumed fine.' })
    const resumed = await rein(['-p', 'Anything left?', '--resume', log.id])
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(resumed.stdout).toContain('Resumed fine.')
    const first = bodyOf(mock.requests[before])
    expect(contentText(first.messages[1].content).startsWith(SUMMARY_FRAME)).toBe(true)
    expect(contentText(first.messages.at(-1)?.content)).toBe('Anything left?')
    const verify = await rein(['sessions', 'verify', log.id])
    expect(verify.code, verify.stdout + verify.stderr).toBe(0)
  })
})

describe('compaction hooks and commands through the built CLI', () => {
  it('a PreCompact hook that blocks stops automatic compaction and says so, and the session goes on', async () => {
    const box = project(45)
    writeFileSync(
      join(box.home, 'settings.json'),
      JSON.stringify({ hooks: { PreCompact: [{ hooks: [{ type: 'command', command: 'echo "Compaction is off for this repo." >&2; exit 2' }] }] } }),
    )
    const mock = await startMockModel({ script: readingScript(44) })
    try {
      const run = await runCli(['-p', 'Read every file.'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
      expect(run.code, run.stderr).toBe(0)
      expect(run.stderr).toContain('A PreCompact hook blocked compaction: Compaction is off for this repo.')
      expect(mock.requests.some(isSummaryRequest)).toBe(false)
      const events = sessionLog(box.home).events
      const ends = events.filter((e) => e.type === 'compaction/end')
      expect(ends.length).toBeGreaterThan(0)
      expect(ends.every((e) => e.data.outcome === 'blocked')).toBe(true)
      expect(events.some((e) => typeof e.surfaceOp === 'object')).toBe(false)
    } finally {
      await mock.close()
    }
  }, 30_000)

  it('reports a failed summary on stderr and leaves the session as it was', async () => {
    const box = project(45)
    const mock = await startMockModel({ script: readingScript(44, { error: { status: 500 } }) })
    try {
      const run = await runCli(['-p', 'Read every file.'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
      expect(run.code, run.stderr).toBe(0)
      expect(run.stderr).toMatch(/Compaction failed and the session is unchanged/)
      const events = sessionLog(box.home).events
      expect(events.some((e) => typeof e.surfaceOp === 'object')).toBe(false)
      const verify = await runCli(['sessions', 'verify', sessionLog(box.home).id], { cwd: box.cwd, env: cliEnv({ home: box.home }) })
      expect(verify.code, verify.stdout + verify.stderr).toBe(0)
    } finally {
      await mock.close()
    }
  }, 30_000)

  it('compacts on the RPC compact command with a focus, and answers with the outcome', async () => {
    const box = project(12)
    const mock = await startMockModel({ script: readingScript(12, { text: 'Twelve files read.' }) })
    const child = spawnCli(['rpc'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    const lines: Record<string, unknown>[] = []
    const waiters: (() => void)[] = []
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(JSON.parse(line) as Record<string, unknown>)
      for (const wake of waiters.splice(0)) wake()
    })
    const waitFor = async (test: (l: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> => {
      for (;;) {
        const found = lines.find(test)
        if (found) return found
        await new Promise<void>((resolve) => waiters.push(resolve))
      }
    }
    const send = (id: number, command: Record<string, unknown>) => {
      child.stdin.write(`${JSON.stringify({ id, ...command })}\n`)
      return waitFor((l) => l.type === 'response' && l.id === id)
    }
    try {
      expect(await send(1, { type: 'prompt', message: 'Read every file.' })).toMatchObject({ ok: true })
      await waitFor((l) => l.type === 'event' && (l.event as { type: string }).type === 'idle')
      const response = await send(2, { type: 'compact', focus: 'which files were read' })
      expect(response).toMatchObject({ ok: true, data: { outcome: 'replaced' } })
      const summaryRequest = mock.requests.at(-1)!
      expect(isSummaryRequest(summaryRequest)).toBe(true)
      expect(contentText(bodyOf(summaryRequest).messages.at(-1)?.content)).toContain('focus on: which files were read')
    } finally {
      child.kill('SIGKILL')
      await mock.close()
    }
  }, 30_000)

  it('compacts earlier when the model sets compactAt lower than the default ratio', async () => {
    const box = project(30, { compactAt: 0.5 })
    const mock = await startMockModel({ script: readingScript(29) })
    try {
      const run = await runCli(['-p', 'Read every file.'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
      expect(run.code, run.stderr).toBe(0)
      expect(mock.requests.some(isSummaryRequest)).toBe(true)
      for (const r of mock.requests) expect(r.promptTokens!).toBeLessThan(WINDOW * 0.5 + 400)
    } finally {
      await mock.close()
    }
  }, 30_000)

  it('refuses to start with a compaction setting of the wrong type, naming the file and line, before any request', async () => {
    const box = project(1)
    writeFileSync(join(box.cwd, '.rein', 'settings.json'), '{\n  "compaction": {\n    "ratio": "soon"\n  }\n}\n')
    const mock = await startMockModel({ script: [{ text: 'never sent' }] })
    try {
      const run = await runCli(['-p', 'hi'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
      expect(run.code).not.toBe(0)
      expect(run.stderr).toMatch(/settings\.json, line 3: compaction\.ratio: .*Fix it and start Rein again\./)
      expect(mock.requests).toHaveLength(0)
    } finally {
      await mock.close()
    }
  }, 30_000)
})
