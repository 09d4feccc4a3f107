import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { gitProcessesOf } from '../../src/checkpoints/locks.js'
import { shadowRepository } from '../../src/checkpoints/retention-schedule.js'
import { cliEnv, runCli, sandbox, spawnCli } from '../support/cli.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'

let mock: MockModel | undefined
const held: number[] = []
afterEach(async () => {
  // Lets the held git go (its stdin ends), so it finishes and exits on its own.
  for (const pid of held.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // Ended already.
    }
  }
  await mock?.close()
  mock = undefined
})

/**
 * A `git` first on PATH that runs the real one, except the first `update-index` after `flag` appears: that one gets
 * its input and then a stdin that stays open, so the real git holds its index lock until the sleeper whose pid it
 * writes to `sleeper` is killed, however its parent ended. A deferred index writer that outlives a SIGKILLed Rein.
 */
function holdingGit(root: string): { path: string; flag: string; sleeper: string } {
  const bin = join(root, 'bin')
  const flag = join(root, 'hold-next-update-index')
  const sleeper = join(root, 'sleeper.pid')
  mkdirSync(bin)
  const real = execFileSync('bash', ['-c', 'command -v git']).toString().trim()
  writeFileSync(
    join(bin, 'git'),
    `#!/bin/bash
if [ -e '${flag}' ] && [[ " $* " == *" update-index "* ]]; then
  rm -f '${flag}'
  { cat; sleep 60 >/dev/null 2>&1 & echo $! > '${sleeper}'; wait; } | '${real}' "$@"
  exit $?
fi
exec '${real}' "$@"
`,
  )
  chmodSync(join(bin, 'git'), 0o755)
  return { path: `${bin}:${process.env.PATH}`, flag, sleeper }
}

async function until(what: string, condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** Lock files at the top of the shadow repository (where the index and its private copies live). */
function topLocks(gitDir: string): string[] {
  return readdirSync(gitDir).filter((name) => name.endsWith('.lock'))
}

describe('a deferred index writer that outlives a SIGKILLed rein -p', () => {
  it('holds no lock the recovery needs: the rewind to the killed turn succeeds while it still runs, and a later command leaves nothing behind', async () => {
    const box = sandbox()
    writeFileSync(join(box.cwd, 'a.txt'), 'one\n')
    const git = holdingGit(box.root)
    const id = 'deferred-kill-1'
    // The step's bash call arms the hold, so the held update-index is the one its listing deferred; the answer
    // after it waits, so Rein is still running (waiting for the model) when it is killed.
    mock = await startMockModel({
      script: [{ toolCalls: [{ name: 'bash', arguments: { command: `echo two > a.txt && echo new > b.txt && touch '${git.flag}'` } }] }, { text: 'Done.', delayMs: 60_000 }],
    })
    const gitDir = shadowRepository(box.home, box.cwd)
    const rein = spawnCli(['-p', 'change a file', '--permission-mode', 'bypass', '--session-id', id], {
      cwd: box.cwd,
      env: cliEnv({ url: mock.url, home: box.home, extra: { PATH: git.path } }),
    })
    rein.stdin.end()
    const exited = new Promise((resolve) => rein.on('close', resolve))
    await until('the held update-index', () => existsSync(git.sleeper) && readFileSync(git.sleeper, 'utf8').trim() !== '' && topLocks(gitDir).length > 0)
    held.push(Number(readFileSync(git.sleeper, 'utf8')))
    // Rein alone, as a kill of its pid does: its git children go on.
    rein.kill('SIGKILL')
    await exited

    const env = cliEnv({ home: box.home })
    const rewind = await runCli(['rewind', id, '--to', '1', '--code', '--overwrite', '--json'], { cwd: box.cwd, env })
    expect(rewind.stderr).toBe('')
    expect(JSON.parse(rewind.stdout).outcome).toBe('rewound')
    expect(rewind.code).toBe(0)
    expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('one\n')
    expect(existsSync(join(box.cwd, 'b.txt'))).toBe(false)
    // The writer still runs, and still the shadow index is not locked.
    expect(topLocks(gitDir)).not.toContain('index.lock')

    // Once the writer has gone, the next command finds no lock and no private index left over.
    process.kill(held[0], 'SIGKILL')
    await until('the held git to finish', () => gitProcessesOf(gitDir)?.length === 0)
    const undo = await runCli(['rewind', id, '--undo', '--overwrite'], { cwd: box.cwd, env })
    expect(undo.code).toBe(0)
    expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('two\n')
    expect(readFileSync(join(box.cwd, 'b.txt'), 'utf8')).toBe('new\n')
    expect(topLocks(gitDir)).toEqual([])
    expect(readdirSync(gitDir).filter((name) => name.startsWith('index.rein-'))).toEqual([])
  })
})
