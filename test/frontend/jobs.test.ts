import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { createInterface } from 'node:readline'
import { openAgentWithContext, type OpenedAgent } from '../../src/runtime/open.js'
import { runCatalogCommand } from '../../src/frontend/commands/one-shot.js'
import { runSlash, type SlashContext } from '../../src/cli/tui/slash-run.js'
import type { PickerChoice } from '../../src/cli/tui/Picker.js'
import { listJobs } from '../../src/tools/job-table.js'
import { runRpc } from '../../src/cli/rpc/rpc-mode.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'

/** `/jobs` (issue 33): the background jobs the model started, their output, and stopping one, from the catalog. */

let mock: MockModel
let opened: OpenedAgent
let cwd: string
let home: string

function env(url: string): NodeJS.ProcessEnv {
  return { ...process.env, REIN_HOME: home, HOME: home, DEEPSEEK_API_KEY: 'sk-test', DEEPSEEK_BASE_URL: url, NO_COLOR: '1' }
}

beforeAll(async () => {
  const root = mkdtempSync(join(tmpdir(), 'rein-jobs-'))
  cwd = join(root, 'project')
  home = join(root, 'home')
  mkdirSync(cwd, { recursive: true })
  mkdirSync(home, { recursive: true })
  mock = await startMockModel({
    script: [
      {
        toolCalls: [
          // Output with a title change and a screen clear: neither may reach a screen raw.
          { name: 'bash', arguments: { command: "printf '\\033]0;evil\\007\\033[2Jserver ready\\n'; sleep 60", run_in_background: true } },
          { name: 'bash', arguments: { command: 'echo done-quickly', run_in_background: true } },
        ],
      },
      { text: 'Both started.' },
    ],
  })
  opened = await openAgentWithContext({ cwd, home, env: env(mock.url), permissionMode: 'bypass' })
  opened.agent.followUp('start the server')
  await opened.agent.whenIdle()
  const quick = listJobs(opened.agent.toolState).find((j) => j.command === 'echo done-quickly')
  await quick?.done
})
afterAll(async () => {
  await opened.agent.close('exit')
  await mock.close()
})

interface Seen {
  said: { text: string; level?: string }[]
  shown: { title: string; text: string }[]
  picks: { title: string; choices: PickerChoice[]; onPick: (value: string) => void }[]
}

function tui(seen: Seen): SlashContext {
  return {
    agent: opened.agent,
    ledger: { byTurn: () => [], subagents: () => undefined } as unknown as SlashContext['ledger'],
    services: {} as SlashContext['services'],
    events: () => opened.agent.session.events,
    sessionId: () => opened.agent.session.id,
    title: () => undefined,
    say: (text, level) => void seen.said.push({ text, level }),
    show: (title, text) => void seen.shown.push({ title, text }),
    pick: (title, choices, onPick) => void seen.picks.push({ title, choices, onPick }),
    exit: () => {},
    refresh: () => {},
  }
}

const fresh = (): Seen => ({ said: [], shown: [], picks: [] })

describe('/jobs', () => {
  it('lists the jobs over RPC-style surfaces with id, state, runtime, size and command; the output has no escape sequence', async () => {
    const listed = await runCatalogCommand(opened.agent, 'rpc', 'jobs', '')
    expect('replies' in listed && listed.replies[0].title).toBe('Background jobs')
    const text = 'replies' in listed ? listed.replies[0].text : ''
    expect(text).toMatch(/^job2 +exited 0 · \d+(\.\d)? (ms|s) · 13 B +echo done-quickly$/m)
    expect(text).toMatch(/^job1 +running · [\d.]+ (ms|s) · \d+ B +printf /m)
    const output = await runCatalogCommand(opened.agent, 'web', 'jobs', 'job1')
    const reply = 'replies' in output ? output.replies[0] : undefined
    expect(reply?.title).toMatch(/^job1: running · /)
    expect(reply?.text).toContain('server ready')
    expect(reply?.text).not.toMatch(/\x1b|\x07/)
    // The user's look leaves the model's read position where job_output left it.
    expect(listJobs(opened.agent.toolState).find((j) => j.id === 'job1')?.readOffset).toBe(0)
  })

  it('hostile: an unknown id, kill without an id and extra words are refused in one sentence', async () => {
    expect(await runCatalogCommand(opened.agent, 'rpc', 'jobs', 'job99')).toEqual({ refused: 'There is no background job job99; /jobs lists them.' })
    expect(await runCatalogCommand(opened.agent, 'rpc', 'jobs', 'kill')).toEqual({ refused: 'Name one job to stop: /jobs kill <id>.' })
    expect(await runCatalogCommand(opened.agent, 'rpc', 'jobs', 'job1 job2')).toEqual({ refused: '/jobs takes a job id, or kill and a job id.' })
    expect(await runCatalogCommand(opened.agent, 'print', 'jobs', '')).toEqual({ refused: '/jobs is not offered here; it works in the terminal UI, ACP editors, rein rpc, rein web.' })
  })

  it('in the terminal UI the picker lists the jobs, choosing one shows its output and offers to stop it', async () => {
    const seen = fresh()
    await runSlash(tui(seen), 'jobs', '')
    expect(seen.picks[0].title).toBe('Background jobs')
    expect(seen.picks[0].choices.map((c) => c.value)).toEqual(['job2', 'job1'])
    expect(seen.picks[0].choices[1].detail).toMatch(/^running · /)
    seen.picks[0].onPick('job2')
    expect(seen.shown.at(-1)?.text).toBe('$ echo done-quickly\ndone-quickly')
    // An exited job has nothing to stop: no second picker.
    expect(seen.picks).toHaveLength(1)
    seen.picks[0].onPick('job1')
    expect(seen.picks[1].choices.map((c) => c.value)).toEqual(['keep', 'kill'])
    seen.picks[1].onPick('kill')
    const job1 = listJobs(opened.agent.toolState).find((j) => j.id === 'job1')!
    await vi.waitFor(() => expect(seen.said.at(-1)?.text).toMatch(/^Stopped job1 \(exit code \d+\)\.$/), { timeout: 10_000 })
    expect(job1.exitCode).toBeDefined()
    await runSlash(tui(seen), 'jobs', 'kill job1')
    expect(seen.said.at(-1)?.text).toBe(`job1 had already exited (exit code ${job1.exitCode}).`)
  })
})

describe('/jobs over RPC, with a job the model started in that session', () => {
  it('run_command lists it and kill stops it through the job table', async () => {
    const root = mkdtempSync(join(tmpdir(), 'rein-jobs-rpc-'))
    const rpcMock = await startMockModel({
      script: [{ toolCalls: [{ name: 'bash', arguments: { command: 'sleep 60', run_in_background: true } }] }, { text: 'Started.' }],
    })
    const input = new PassThrough()
    const output = new PassThrough()
    const lines: Record<string, unknown>[] = []
    const ended = new Promise<void>((resolve) => {
      createInterface({ input: output }).on('line', (line) => {
        const parsed = JSON.parse(line) as Record<string, unknown>
        lines.push(parsed)
        // The agent's live `idle`: the turn ended and the inbox is empty.
        if (parsed.type === 'event' && (parsed.event as { type?: string }).type === 'idle') resolve()
      })
    })
    const done = runRpc({ cwd: root, home, env: env(rpcMock.url), permissionMode: 'bypass', input, output })
    input.write(`${JSON.stringify({ id: 1, type: 'prompt', message: 'start it' })}\n`)
    await ended
    input.write(`${JSON.stringify({ id: 2, type: 'run_command', name: 'jobs' })}\n${JSON.stringify({ id: 3, type: 'run_command', name: 'jobs', args: 'kill job1' })}\n`)
    input.write(`${JSON.stringify({ id: 4, type: 'run_command', name: 'jobs' })}\n${JSON.stringify({ id: 5, type: 'shutdown' })}\n`)
    expect(await done).toBe(0)
    await rpcMock.close()
    const reply = (id: number) => ((lines.find((l) => l.type === 'response' && l.id === id) as { data: { replies: { text: string }[] } }).data.replies[0].text)
    expect(reply(2)).toMatch(/^job1 +running .* sleep 60$/m)
    expect(reply(3)).toMatch(/^Stopped job1 \(exit code \d+\)\.$/)
    expect(reply(4)).toMatch(/^job1 +exited \d+ .* sleep 60$/m)
  })
})
