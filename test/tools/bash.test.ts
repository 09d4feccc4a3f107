import { readFileSync, statSync } from 'node:fs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { bashTool } from '../../src/tools/bash.js'
import { killStrays, liveProcesses } from './processes.js'
import { makeWorkspace, textOf, type Workspace } from './tool-context.js'

let ws: Workspace
beforeEach(() => {
  ws = makeWorkspace({ secretEnv: ['MY_SERVICE_TOKEN'] })
})
afterEach(async () => {
  await ws.dispose()
})

describe('bash', () => {
  it('runs in the working directory and ends with the exit code', async () => {
    const out = await ws.run(bashTool, { command: 'pwd; echo hello' })
    expect(out.isError).toBeFalsy()
    expect(textOf(out)).toBe(`${ws.cwd}\nhello\n[exit code: 0]`)
  })

  it('treats a non-zero exit as a normal result and includes stderr', async () => {
    const out = await ws.run(bashTool, { command: 'echo oops >&2; exit 3' })
    expect(out.isError).toBeFalsy()
    expect(textOf(out)).toBe('oops\n[exit code: 3]')
    expect(out.meta).toMatchObject({ exitCode: 3 })
  })

  it('hides DEEPSEEK_API_KEY and settings secrets, and turns pagers and colour off', async () => {
    process.env.DEEPSEEK_API_KEY = 'sk-should-not-leak'
    process.env.MY_SERVICE_TOKEN = 'token-should-not-leak'
    try {
      const out = textOf(await ws.run(bashTool, { command: 'env' }))
      expect(out).not.toContain('should-not-leak')
      expect(out).toContain('NO_COLOR=1')
      expect(out).toContain('PAGER=cat')
      expect(out).toContain('GIT_PAGER=cat')
    } finally {
      delete process.env.DEEPSEEK_API_KEY
      delete process.env.MY_SERVICE_TOKEN
    }
  })

  it('kills the whole process group on timeout and leaves no orphan', async () => {
    const out = await ws.run(bashTool, { command: 'sleep 41.01 & sleep 41.02; echo never', timeout: 300 })
    expect(out.isError).toBe(true)
    expect(textOf(out)).toMatch(/timed out after 300 ms; the command and its children were killed\]\n\[exit code: \d+\]$/)
    expect(liveProcesses('sleep 41.0')).toEqual([])
  })

  it('escalates to SIGKILL for a command that ignores SIGTERM', async () => {
    const out = await ws.run(bashTool, { command: "trap '' TERM; sleep 42.01 & wait; sleep 42.02", timeout: 200 })
    expect(textOf(out)).toMatch(/timed out/)
    expect(liveProcesses('sleep 42.0')).toEqual([])
  })

  it('stops and kills the group when the call is cancelled', async () => {
    const abort = new AbortController()
    const running = ws.run(bashTool, { command: 'echo started; sleep 43.01' }, { signal: abort.signal })
    while (!ws.progress.join('').includes('started')) await new Promise((r) => setTimeout(r, 20))
    abort.abort()
    const out = await running
    expect(textOf(out)).toMatch(/started\n\[cancelled/)
    expect(liveProcesses('sleep 43.01')).toEqual([])
  })

  it('streams a character whose bytes arrive in two chunks whole, not as U+FFFD', async () => {
    // 世 is e4 b8 96: the first byte, a pause long enough for its own read, then the rest.
    const out = await ws.run(bashTool, { command: "printf 'a\\344'; sleep 0.3; printf '\\270\\226\\n'" })
    expect(ws.progress).toEqual(['a', '世\n'])
    expect(textOf(out)).toBe('a世\n[exit code: 0]')
  })

  it('shows invalid UTF-8 in the output as U+FFFD, never as raw bytes', async () => {
    const out = await ws.run(bashTool, { command: "printf 'a\\377b\\344\\n'" })
    expect(ws.progress.join('')).toBe('a\uFFFDb\uFFFD\n')
    expect(textOf(out)).toBe('a\uFFFDb\uFFFD\n[exit code: 0]')
  })

  it('returns when the command exits even if a background child keeps the pipes open', { timeout: 20_000 }, async () => {
    try {
      const out = await ws.run(bashTool, { command: '(sleep 300.44 &); sleep 300.45 & echo forked' })
      expect(textOf(out)).toBe('forked\n[exit code: 0]')
    } finally {
      killStrays('sleep 300.4')
    }
  })

  it('shows the tail of long output and spills all of it to a private file', async () => {
    const out = await ws.run(bashTool, { command: 'seq 1 200000' })
    const text = textOf(out)
    const file = /full output in (\S+)\]/.exec(text)?.[1]
    expect(file).toBeDefined()
    expect(text).toMatch(/\n200000\n\[exit code: 0\]$/)
    expect(text.length).toBeLessThan(32 * 1024)
    expect(statSync(file!).mode & 0o777).toBe(0o600)
    const full = readFileSync(file!, 'utf8')
    expect(full.startsWith('1\n2\n3\n')).toBe(true)
    expect(full.endsWith('199999\n200000\n')).toBe(true)
  })

  it('closes stdin so a command waiting for input ends', async () => {
    const out = await ws.run(bashTool, { command: 'read line; echo "got:$line"' })
    expect(textOf(out)).toBe('got:\n[exit code: 0]')
  })
})
