import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { z } from 'zod'
import { afterEach, describe, expect, it } from 'vitest'
import { Checkpoints } from '../../src/checkpoints/engine.js'
import { checkpointExtension } from '../../src/checkpoints/extension.js'
import { runtimeContext } from '../../src/context/runtime.js'
import type { AnyTool } from '../../src/tools/tool.js'
import { echoTool, harness } from '../support/agent-harness.js'

const realPath = process.env.PATH
afterEach(() => {
  process.env.PATH = realPath
})

/** A `git` first on PATH that logs each run (one line of its arguments) and then runs the real one. */
function countingGit(root: string): { log: string; runs: () => string[] } {
  const bin = join(root, 'bin')
  const log = join(root, 'git.log')
  mkdirSync(bin)
  writeFileSync(log, '')
  const real = execFileSync('bash', ['-c', 'command -v git']).toString().trim()
  writeFileSync(join(bin, 'git'), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${real}' "$@"\n`)
  chmodSync(join(bin, 'git'), 0o755)
  process.env.PATH = `${bin}:${realPath}`
  return { log, runs: () => readFileSync(log, 'utf8').split('\n').filter(Boolean) }
}

function writeTool(cwd: string): AnyTool {
  return {
    name: 'write_note',
    description: 'Write a note.',
    schema: z.object({ text: z.string() }),
    readOnly: false,
    category: 'edit',
    kind: 'edit',
    run: async (args: { text: string }) => {
      writeFileSync(join(cwd, 'note.txt'), args.text)
      return { content: [{ type: 'text', text: 'written' }] }
    },
  }
}

describe('a read-only step costs nothing extra', () => {
  it('spawns no checkpoint git at all: only a step that may write does, and the turn probe is the runtime context one', async () => {
    const root = mkdtempSync(join(tmpdir(), 'rein-readonly-'))
    const cwd = join(root, 'project')
    mkdirSync(cwd)
    writeFileSync(join(cwd, 'a.txt'), 'alpha\n')
    const git = countingGit(root)
    const engine = new Checkpoints({ home: join(root, 'home'), cwd, sessionId: 'readonly' })
    const read = { toolCalls: [{ name: 'echo', arguments: { text: 'look' } }] }
    const h = await harness({
      script: [read, { text: 'hello' }, read, read, read, { text: 'done' }, { toolCalls: [{ name: 'write_note', arguments: { text: 'x' } }] }, { text: 'written' }],
      tools: [echoTool, writeTool(cwd)],
      extensions: [runtimeContext(), checkpointExtension({ engine })],
    })
    // The session's first staging starts in the background with its first tool call; the steps are counted after it.
    h.agent.followUp('hi')
    await h.agent.whenIdle()
    await engine.settled()
    const atOpen = git.runs().length
    expect(git.runs().some((line) => line.includes('status'))).toBe(true)
    h.agent.followUp('read three times')
    await h.agent.whenIdle()
    const readTurn = git.runs().slice(atOpen)
    expect(readTurn.filter((line) => line.includes('--git-dir'))).toEqual([])
    // The runtime context probes once per turn (at its first step: a config read and one status), never after a
    // read-only tool: three read-only steps, one probe.
    expect(readTurn.filter((line) => / status /.test(line))).toHaveLength(1)
    const beforeWrite = git.runs().length
    h.agent.followUp('write')
    await h.agent.whenIdle()
    await engine.settled()
    const writeTurn = git.runs().slice(beforeWrite)
    expect(writeTurn.filter((line) => line.includes('--git-dir')).length).toBeGreaterThan(0)
    expect(h.session.events.filter((e) => e.type === 'checkpoint/created')).toHaveLength(1)
    await h.close()
    rmSync(root, { recursive: true, force: true })
  })
})
