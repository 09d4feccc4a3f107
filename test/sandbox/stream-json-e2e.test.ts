import { existsSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { cliEnv, runCli, sandbox as testBox } from '../support/cli.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { requireBwrap } from './bwrap-required.js'

// `rein -p --output-format stream-json` with the sandbox on: a program reading Claude Code's stream learns which tool
// results ran sandboxed, and what the sandbox stopped, from the `rein` key of the results' `user` line.

const bwrap = requireBwrap()

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

interface Line {
  type: string
  message?: { content?: { type: string; id?: string; tool_use_id?: string }[] }
  rein?: { sandboxed?: { tool_use_id: string; note?: string; refused_hosts?: string[] }[] }
}

async function streamOf(commands: string[], flags: string[]): Promise<Line[]> {
  const box = testBox()
  mock = await startMockModel({ script: [{ toolCalls: commands.map((command) => ({ name: 'bash', arguments: { command } })) }, { text: 'done' }] })
  const r = await runCli(['-p', 'go', '--output-format', 'stream-json', '--permission-mode', 'default', ...flags], {
    cwd: box.cwd,
    env: cliEnv({ url: mock.url, home: box.home }),
  })
  expect(r.code, r.stderr).toBe(0)
  return r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line)
}

const resultLine = (lines: Line[]) => lines.find((l) => l.type === 'user' && l.message?.content?.some((b) => b.type === 'tool_result'))
const toolUseIds = (lines: Line[]) =>
  lines.filter((l) => l.type === 'assistant').flatMap((l) => (l.message?.content ?? []).filter((b) => b.type === 'tool_use').map((b) => b.id))

describe.runIf(bwrap.available)('stream-json with the sandbox on', () => {
  it('lists each sandboxed tool result under rein.sandboxed, with the note of what the sandbox stopped', async () => {
    const lines = await streamOf(['echo fine', 'touch /etc/rein-stream-probe'], ['--sandbox'])
    const [first, second] = toolUseIds(lines)
    const sandboxed = resultLine(lines)?.rein?.sandboxed
    expect(sandboxed?.map((s) => s.tool_use_id)).toEqual([first, second])
    expect(sandboxed?.[0]?.note).toBeUndefined()
    expect(sandboxed?.[1]?.note).toMatch(/^The sandbox kept \/etc\/rein-stream-probe read-only/)
    expect(existsSync('/etc/rein-stream-probe')).toBe(false)
  })

  it('adds no rein key to the results of commands that ran unconfined', async () => {
    const lines = await streamOf(['echo fine'], ['--no-sandbox', '--allow', 'Bash(echo fine)'])
    const line = resultLine(lines)
    expect(line?.message?.content?.[0]).toMatchObject({ type: 'tool_result' })
    expect(line).not.toHaveProperty('rein')
  })
})
