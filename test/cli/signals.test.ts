import { afterEach, describe, expect, it } from 'vitest'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { cliEnv, sandbox, spawnCli } from '../support/cli.js'
import { killStrays, liveProcesses } from '../tools/processes.js'

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
  killStrays('sleep 31')
})

const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

async function until(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (check()) return
    await wait(50)
  }
  throw new Error(`timed out waiting until ${what}`)
}

function onlyLog(home: string): { type: string; data: { reason?: string } }[] {
  const root = join(home, 'sessions')
  for (const dir of readdirSync(root)) {
    const file = readdirSync(join(root, dir)).find((f) => f.endsWith('.jsonl'))
    if (file) return readFileSync(join(root, dir, file), 'utf8').trim().split('\n').slice(1).map((l) => JSON.parse(l))
  }
  throw new Error('no session log')
}

const cases: { signal: NodeJS.Signals; code: number; mode: 'print' | 'rpc'; n: number }[] = [
  { signal: 'SIGTERM', code: 143, mode: 'print', n: 1 },
  { signal: 'SIGHUP', code: 129, mode: 'print', n: 2 },
  { signal: 'SIGINT', code: 130, mode: 'print', n: 3 },
  { signal: 'SIGTERM', code: 143, mode: 'rpc', n: 4 },
  { signal: 'SIGHUP', code: 129, mode: 'rpc', n: 5 },
]

describe('every signal ends a run like Ctrl-C', () => {
  for (const { signal, code, mode, n } of cases) {
    it(`${signal} to rein ${mode === 'print' ? '-p' : 'rpc'} kills the running bash tool and the background job, ends the turn interrupted and exits ${code}`, async () => {
      const box = sandbox()
      const foreground = `sleep 312.${n}`
      const background = `sleep 313.${n}`
      mock = await startMockModel({
        script: [
          { toolCalls: [{ name: 'bash', arguments: { command: background, run_in_background: true } }] },
          { toolCalls: [{ name: 'bash', arguments: { command: foreground } }] },
          { text: 'never reached' },
        ],
      })
      const env = cliEnv({ url: mock.url, home: box.home })
      const args = mode === 'print' ? ['-p', 'start both', '--permission-mode', 'bypass'] : ['rpc', '--permission-mode', 'bypass']
      const child = spawnCli(args, { cwd: box.cwd, env })
      let stderr = ''
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
      child.stdout.resume()
      if (mode === 'rpc') child.stdin.write(`${JSON.stringify({ type: 'prompt', message: 'start both' })}\n`)
      else child.stdin.end()
      const exited = new Promise<number | null>((resolve) => child.on('close', (status) => resolve(status)))

      await until('both sleeps run', () => liveProcesses(foreground).length > 0 && liveProcesses(background).length > 0)
      child.kill(signal)
      expect(await exited).toBe(code)
      expect(stderr).not.toMatch(/\n\s+at /)
      expect(liveProcesses(foreground)).toEqual([])
      expect(liveProcesses(background)).toEqual([])
      const ends = onlyLog(box.home).filter((e) => e.type === 'turn/end')
      expect(ends.at(-1)?.data.reason).toBe('interrupted')
    }, 30_000)
  }
})
