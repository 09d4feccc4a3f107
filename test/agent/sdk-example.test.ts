import { describe, expect, it } from 'vitest'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { spawn } from 'node:child_process'
import { startMockModel } from '../support/mock-model.js'
import { cliEnv, sandbox } from '../support/cli.js'

const repo = resolve(import.meta.dirname, '../..')

describe('docs/sdk.md', () => {
  it('its example runs as written against the mock model', async () => {
    const doc = readFileSync(join(repo, 'docs/sdk.md'), 'utf8')
    const code = /```ts\n([\s\S]*?)```/.exec(doc)?.[1]
    expect(code, 'docs/sdk.md has a ts code block').toBeTruthy()
    expect(code!.trim().split('\n').length).toBeLessThanOrEqual(12)
    // The example imports the package by name; a file inside the package resolves that to the build (self-reference).
    mkdirSync(join(repo, '.tmp'), { recursive: true })
    const file = join(repo, '.tmp', `sdk-example-${process.pid}.mjs`)
    writeFileSync(file, code!)
    const box = sandbox()
    const mock = await startMockModel({ script: [{ text: 'The test command is `vitest run`.' }] })
    // The mock runs in this process, so the example must run asynchronously beside it.
    const child = spawn(process.execPath, [file], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    const status = await new Promise((resolve) => child.on('close', resolve))
    const r = { stdout, stderr, status }
    await mock.close()
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    expect(r.stdout).toMatch(/^The test command is `vitest run`\.\ncompleted in session [0-9a-f-]{36}\n$/)
    const body = mock.requests[0].body as { messages: { role: string; content: string }[] }
    const users = body.messages.filter((m) => m.role === 'user').map((m) => m.content)
    expect(users).toContain('The user prefers short answers.')
    expect(users).toContain('What does package.json say the test command is?')
  })
})
