import { afterEach, describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { cliEnv, runCli } from '../support/cli.js'

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

/** A workspace outside the `rein-*` temp names, since these logs are tampered with on purpose (see verify-all.ts). */
function workspace(): { cwd: string; home: string } {
  const root = mkdtempSync(join(tmpdir(), 'tampered-'))
  const cwd = join(root, 'project')
  const home = join(root, 'home')
  mkdirSync(cwd, { recursive: true })
  mkdirSync(home, { recursive: true })
  return { cwd, home }
}

function logFile(home: string): string {
  const dir = join(home, 'sessions', readdirSync(join(home, 'sessions'))[0])
  return join(dir, readdirSync(dir).find((f) => f.endsWith('.jsonl')) as string)
}

async function session(): Promise<{ cwd: string; home: string; env: NodeJS.ProcessEnv; id: string }> {
  const box = workspace()
  writeFileSync(join(box.cwd, 'AGENTS.md'), 'Answer in haiku.\n')
  mock = await startMockModel({
    script: [{ toolCalls: [{ name: 'ls', arguments: { path: box.cwd } }] }, { text: 'One file.' }],
  })
  const env = cliEnv({ url: mock.url, home: box.home })
  const r = await runCli(['-p', 'what is here?', '--output-format', 'json'], { cwd: box.cwd, env })
  expect(r.code).toBe(0)
  return { ...box, env, id: JSON.parse(r.stdout).session_id }
}

describe('rein sessions verify and show --requests', () => {
  it('verify re-derives every request from the log and finds each digest matching', async () => {
    const s = await session()
    const r = await runCli(['sessions', 'verify', s.id.slice(0, 6)], { cwd: s.cwd, env: s.env })
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/no problems/)
  })

  it('verify fails, naming the step, when the log was edited by hand', async () => {
    const s = await session()
    const file = logFile(s.home)
    writeFileSync(file, readFileSync(file, 'utf8').replaceAll('what is here?', 'what is there?'))
    const r = await runCli(['sessions', 'verify', s.id], { cwd: s.cwd, env: s.env })
    expect(r.code).toBe(1)
    expect(r.stdout).toMatch(/the request of turn 1 step 1 does not match the log/)
    expect(r.stdout).toMatch(/the request of turn 1 step 2 does not match the log/)
    expect(r.stderr).toMatch(/has 2 problems/)
  })

  it('show --requests prints the exact request of a step, each message marked with the producer it came from', async () => {
    const s = await session()
    const r = await runCli(['sessions', 'show', s.id, '--requests', '--step', '1.1'], { cwd: s.cwd, env: s.env })
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/turn 1 step 1 .* digest matches the log/)
    expect(r.stdout).toMatch(/--- user \[user\/message seq \d+ · from user\]\nwhat is here\?/)
    expect(r.stdout).toMatch(/--- user \[context\/message seq \d+ · from workspace-context\]\n<system-reminder>/)
    expect(r.stdout).toMatch(/--- user \[context\/message seq \d+ · from runtime-context\]/)
    expect(r.stdout).not.toMatch(/turn 1 step 2/)

    const bodies = await runCli(['sessions', 'show', s.id, '--requests', '--json'], { cwd: s.cwd, env: s.env })
    const lines = bodies.stdout.trim().split('\n').map((l) => JSON.parse(l))
    expect(lines.map((l) => [l.turn, l.step, l.matches])).toEqual([
      [1, 1, true],
      [1, 2, true],
    ])
    expect(lines[1].body).toEqual(mock!.requests[1].body)
  })
})
