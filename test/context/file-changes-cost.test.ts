import { mkdtempSync, realpathSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { FILE_CHANGES, FILE_CHANGES_MAX_LISTED, fileChanges, fileChangesText } from '../../src/context/file-changes.js'
import { hashBytes } from '../../src/tools/file-versions.js'
import type { FileVersion } from '../../src/tools/tool.js'
import { FakeAgent } from './fake-agent.js'

let dir: string
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'rein-changes-cost-')))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

function readFile(name: string): [string, FileVersion] {
  const file = join(dir, name)
  writeFileSync(file, 'one\n')
  const info = statSync(file)
  return [file, { size: info.size, mtimeMs: info.mtimeMs, sha256: hashBytes('one\n') }]
}
const change = (file: string) => {
  writeFileSync(file, 'two and more\n')
  utimesSync(file, new Date(), new Date(Date.now() + 5_000))
}

describe('the file-changes reminder, bounded', () => {
  it(`lists at most ${FILE_CHANGES_MAX_LISTED} paths and counts the rest in one line`, () => {
    const changes = Array.from({ length: 1_000 }, (_, i) => ({ path: join(dir, `f${i}.ts`), deleted: true as const }))
    const text = fileChangesText(changes, dir)
    expect(text.split('\n').filter((l) => l.startsWith('- f')).length).toBe(FILE_CHANGES_MAX_LISTED)
    expect(text).toContain(`- and ${1_000 - FILE_CHANGES_MAX_LISTED} more files;`)
    expect(text.length).toBeLessThan(2_000)
  })

  it('checks nothing after a step of read-only tools, and tells the change after a step that could write', async () => {
    const [file, version] = readFile('a.ts')
    const producer = fileChanges(new Map([[file, version]]))
    const agent = await FakeAgent.open(dir)
    await agent.step([producer], 'hi')
    change(file)
    await agent.tool(producer, 'read', { file_path: file })
    expect(await agent.step([producer])).toEqual([])
    await agent.tool(producer, 'bash', { command: 'true' })
    await agent.step([producer])
    expect(agent.textsFrom(FILE_CHANGES).join('\n')).toContain('- a.ts')
  })

  it("tells a change made between turns at the next turn's first step", async () => {
    const [file, version] = readFile('b.ts')
    const producer = fileChanges(new Map([[file, version]]))
    const agent = await FakeAgent.open(dir)
    await agent.step([producer], 'hi')
    await agent.step([producer])
    change(file)
    agent.newTurn()
    await agent.step([producer], 'next')
    expect(agent.textsFrom(FILE_CHANGES).join('\n')).toContain('- b.ts')
  })
})
