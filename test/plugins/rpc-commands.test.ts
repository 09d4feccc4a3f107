import { mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { runRpc } from '../../src/cli/rpc/rpc-mode.js'

const FIXTURES = resolve(import.meta.dirname, '../fixtures/plugins')

describe('rein rpc and a session plugin', () => {
  it("get_commands lists the plugin's commands as plugin:command", async () => {
    const root = mkdtempSync(join(tmpdir(), 'rein-plugins-rpc-'))
    const cwd = join(root, 'project')
    const home = join(root, 'home')
    mkdirSync(cwd, { recursive: true })
    mkdirSync(home, { recursive: true })
    const input = new PassThrough()
    const output = new PassThrough()
    const lines: Record<string, unknown>[] = []
    createInterface({ input: output }).on('line', (line) => lines.push(JSON.parse(line) as Record<string, unknown>))
    const env = { ...process.env, REIN_HOME: home, HOME: home, DEEPSEEK_API_KEY: 'sk-test-not-a-real-key', DEEPSEEK_BASE_URL: 'http://127.0.0.1:9' }
    const done = runRpc({ cwd, home, env, input, output, pluginDirs: [join(FIXTURES, 'ralph-loop')] })
    input.write(`${JSON.stringify({ id: 1, type: 'get_commands' })}\n${JSON.stringify({ id: 2, type: 'shutdown' })}\n`)
    expect(await done).toBe(0)
    const answer = lines.find((l) => l.type === 'response' && l.id === 1) as { data: { commands: { name: string; origin: string }[] } }
    expect(answer.data.commands.map((c) => [c.name, c.origin])).toEqual([
      ['ralph-loop:cancel-ralph', 'plugin ralph-loop'],
      ['ralph-loop:help', 'plugin ralph-loop'],
      ['ralph-loop:ralph-loop', 'plugin ralph-loop'],
    ])
  })
})
