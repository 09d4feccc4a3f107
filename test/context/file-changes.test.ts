import { mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { fileChangesText } from '../../src/context/file-changes.js'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { installScript } from '../hooks/support.js'
import { requireBuiltCli } from './cli-support.js'

let mock: MockModel | undefined
beforeAll(() => requireBuiltCli())
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

type ChatMessage = { role: string; content: unknown }
const textOf = (content: unknown): string =>
  typeof content === 'string' ? content : (content as { text?: string }[]).map((part) => part.text ?? '').join('')

function loggedEvents(home: string): { type: string; data: Record<string, unknown> }[] {
  const root = join(home, 'sessions')
  const events: { type: string; data: Record<string, unknown> }[] = []
  for (const dir of readdirSync(root)) {
    for (const file of readdirSync(join(root, dir)).filter((f) => f.endsWith('.jsonl'))) {
      events.push(...readFileSync(join(root, dir, file), 'utf8').trim().split('\n').slice(1).map((l) => JSON.parse(l)))
    }
  }
  return events
}

describe('files changed outside the model’s own tools', () => {
  it('a PostToolUse formatter rewrites the edited file; the model is told once, re-reads, and its next edit succeeds', async () => {
    const box = sandbox()
    const cwd = realpathSync(box.cwd)
    mkdirSync(join(cwd, '.git'))
    mkdirSync(join(cwd, 'src'))
    const file = join(cwd, 'src', 'a.ts')
    writeFileSync(file, 'const a = 1;\n')
    const formatter = installScript(cwd, 'format-after-edit.mjs')
    mkdirSync(join(cwd, '.claude'), { recursive: true })
    writeFileSync(
      join(cwd, '.claude', 'settings.json'),
      JSON.stringify({ hooks: { PostToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: `node "${formatter}"` }] }] } }),
    )
    mock = await startMockModel({
      script: [
        { toolCalls: [{ name: 'read', arguments: { file_path: 'src/a.ts' } }] },
        { toolCalls: [{ name: 'edit', arguments: { file_path: 'src/a.ts', old_string: 'const a = 1;', new_string: 'const a = 1;  \nconst b = 2;\t' } }] },
        { toolCalls: [{ name: 'read', arguments: { file_path: 'src/a.ts' } }] },
        { toolCalls: [{ name: 'edit', arguments: { file_path: 'src/a.ts', old_string: 'const b = 2;', new_string: 'const b = 3;' } }] },
        { text: 'Done.' },
      ],
    })
    const run = await runCli(['-p', 'add b', '--permission-mode', 'accept-edits', '--trust-project-hooks'], {
      cwd,
      env: cliEnv({ url: mock.url, home: box.home }),
    })
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(readFileSync(file, 'utf8')).toBe('const a = 1;\nconst b = 3;\n')

    const events = loggedEvents(box.home)
    const reminders = events.filter((e) => e.type === 'context/message' && (e.data.source as { kind: string }).kind === 'file-changes')
    expect(reminders).toHaveLength(1)
    const expected = fileChangesText([{ path: file, size: 0, mtimeMs: 0 }], cwd)
    expect(textOf(reminders[0].data.content)).toBe(expected)
    expect(expected).toContain('\n- src/a.ts\n')
    const results = events.filter((e) => e.type === 'tool/result').map((e) => e.data.isError)
    expect(results).toEqual([false, false, false, false])

    // The request after the formatter ran ends with the edit's result and then the reminder, verbatim.
    const third = (mock.requests[2].body as { messages: ChatMessage[] }).messages
    expect(third.at(-2)?.role).toBe('tool')
    expect(third.at(-1)).toMatchObject({ role: 'user' })
    expect(textOf(third.at(-1)!.content)).toBe(expected)
    // Its own later edit is not reported back to it.
    const last = (mock.requests[4].body as { messages: ChatMessage[] }).messages
    expect(last.filter((m) => m.role === 'user' && textOf(m.content).includes('changed on disk'))).toHaveLength(1)
  })

  it('names deleted files and shows paths outside the working directory in full', () => {
    const text = fileChangesText([{ path: '/w/p/gone.txt', deleted: true }, { path: '/elsewhere/x.md', size: 3, mtimeMs: 1 }], '/w/p')
    expect(text).toContain('\n- gone.txt (deleted)\n- /elsewhere/x.md\n')
  })
})
