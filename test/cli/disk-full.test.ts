import { afterEach, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { statfsSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { cliEnv, runCli, sandbox } from '../support/cli.js'

let mock: MockModel | undefined
const mounted: string[] = []
afterEach(async () => {
  await mock?.close()
  mock = undefined
  for (const dir of mounted.splice(0)) execFileSync('umount', [dir])
})

/** Mounting a tmpfs needs root; elsewhere the injectable-store test (test/agent/write-failure.test.ts) covers this. */
const canMount = process.getuid?.() === 0

describe.runIf(canMount)('a full disk under $REIN_HOME', () => {
  it('rein -p stops at once, says so in one sentence with is_error, exits 1, and the saved part resumes once space is freed', async () => {
    const box = sandbox()
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', box.home])
    mounted.push(box.home)
    const big = 'x'.repeat(20_000)
    mock = await startMockModel({
      script: [
        ...Array.from({ length: 12 }, () => ({ toolCalls: [{ name: 'bash', arguments: { command: `printf '%s' ${big.slice(0, 15_000)}` } }] })),
        { text: 'all done' },
        { text: 'resumed fine', repeat: true },
      ],
    })
    const env = cliEnv({ url: mock.url, home: box.home })
    const stats = statfsSync(box.home)
    const filler = join(box.home, 'filler')
    writeFileSync(filler, Buffer.alloc(Number(stats.bavail) * Number(stats.bsize) - 120_000))

    const r = await runCli(['-p', 'fill it', '--permission-mode', 'bypass', '--output-format', 'json'], { cwd: box.cwd, env })
    expect(r.code).toBe(1)
    const result = JSON.parse(r.stdout) as { is_error: boolean; subtype: string; errors: string[]; session_id: string }
    const sentence = new RegExp(
      `^Rein could not write the session log \\(disk full\\); everything up to event \\d+ is saved; free space and run rein --resume ${result.session_id}\\.$`,
    )
    expect(result.is_error).toBe(true)
    expect(result.subtype).toBe('error_during_execution')
    expect(result.errors[0]).toMatch(sentence)
    // The json result carries the sentence; stderr stays free of stack traces and duplicates.
    expect(r.stderr).toBe('')
    const requestsAtFailure = mock.requests.length
    expect(requestsAtFailure).toBeLessThan(13)

    unlinkSync(filler)
    const resumed = await runCli(['-p', 'go on', '--resume', result.session_id], { cwd: box.cwd, env })
    expect(resumed.code).toBe(0)
    const verify = await runCli(['sessions', 'verify', result.session_id], { cwd: box.cwd, env })
    expect(verify.code).toBe(0)
  }, 60_000)
})
