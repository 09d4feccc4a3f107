import { execFileSync } from 'node:child_process'
import { mkdtempSync, realpathSync, rmSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { FILE_CHANGES, fileChanges } from '../../src/context/file-changes.js'
import { hashBytes } from '../../src/tools/file-versions.js'
import type { FileVersion } from '../../src/tools/tool.js'
import { FakeAgent } from './fake-agent.js'

let dir: string
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'rein-changes-pipe-')))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('the file-changes producer and files that stop being files', () => {
  it('an empty file the model read, replaced by a named pipe, is reported changed without opening the pipe', async () => {
    const file = join(dir, 'empty.txt')
    writeFileSync(file, '')
    const info = statSync(file)
    const files = new Map<string, FileVersion>([[file, { size: 0, mtimeMs: info.mtimeMs, sha256: hashBytes('') }]])
    unlinkSync(file)
    execFileSync('mkfifo', [file])
    utimesSync(file, new Date(), new Date(info.mtimeMs + 5_000))
    const agent = await FakeAgent.open(dir)
    await agent.step([fileChanges(files)], 'next')
    expect(agent.textsFrom(FILE_CHANGES).join('\n')).toContain('- empty.txt')
  })
})
