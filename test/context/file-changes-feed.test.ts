import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { FILE_CHANGES, fileChanges } from '../../src/context/file-changes.js'
import { offerFeed, watchTree, withdrawFeed, type ChangeFeed } from '../../src/fs/change-feed.js'
import { hashBytes } from '../../src/tools/file-versions.js'
import type { FileVersion } from '../../src/tools/tool.js'
import { FakeAgent } from './fake-agent.js'

let root: string
let cwd: string
let feed: ChangeFeed
const skip = (_path: string, name: string) => name === 'node_modules' || name === '.git'
beforeEach(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'rein-changes-feed-')))
  cwd = join(root, 'project')
  mkdirSync(join(cwd, 'src'), { recursive: true })
  mkdirSync(join(cwd, 'node_modules', 'lib'), { recursive: true })
  feed = watchTree(cwd, { skip })
  await feed.ready
  offerFeed(cwd, feed, skip)
})
afterEach(() => {
  withdrawFeed(cwd, feed)
  feed.close()
  rmSync(root, { recursive: true, force: true })
})

function recorded(path: string): [string, FileVersion] {
  writeFileSync(path, 'one\n')
  const info = statSync(path)
  return [path, { size: info.size, mtimeMs: info.mtimeMs, sha256: hashBytes('one\n') }]
}
const change = (file: string) => {
  writeFileSync(file, 'two and more\n')
  utimesSync(file, new Date(), new Date(Date.now() + 5_000))
}

/** A producer over these files, past its first check (which stats every file and takes the feed's first mark). */
async function checked(files: [string, FileVersion][]): Promise<{ agent: FakeAgent; producer: ReturnType<typeof fileChanges> }> {
  const producer = fileChanges(new Map(files))
  const agent = await FakeAgent.open(cwd)
  await agent.step([producer], 'hi')
  return { agent, producer }
}

async function afterWrite(agent: FakeAgent, producer: ReturnType<typeof fileChanges>): Promise<string> {
  await agent.tool(producer, 'bash', { command: 'true' })
  await agent.step([producer])
  return agent.textsFrom(FILE_CHANGES).join('\n')
}

describe('the file-changes check after a writing step, with a change feed: O(changed files)', () => {
  it('tells a file the feed saw written, in a watched directory and in one made since', async () => {
    const a = recorded(join(cwd, 'src', 'a.ts'))
    const { agent, producer } = await checked([a])
    change(a[0])
    expect(await afterWrite(agent, producer)).toContain('- src/a.ts')
  })

  it('tells a file whose directory was removed and made again', async () => {
    mkdirSync(join(cwd, 'gen'))
    const g = recorded(join(cwd, 'gen', 'g.ts'))
    const { agent, producer } = await checked([g])
    rmSync(join(cwd, 'gen'), { recursive: true })
    mkdirSync(join(cwd, 'gen'))
    writeFileSync(join(cwd, 'gen', 'g.ts'), 'regenerated, longer\n')
    expect(await afterWrite(agent, producer)).toContain('- gen/g.ts')
  })

  it('still stats what the feed does not watch (node_modules, outside the workspace)', async () => {
    const lib = recorded(join(cwd, 'node_modules', 'lib', 'index.d.ts'))
    const outside = recorded(join(root, 'outside.ts'))
    const { agent, producer } = await checked([lib, outside])
    change(lib[0])
    change(outside[0])
    const text = await afterWrite(agent, producer)
    expect(text).toContain('- node_modules/lib/index.d.ts')
    expect(text).toContain(`- ${outside[0]}`)
  })

  it('looks only at what the feed names: a write through a hard link from outside is not seen (the documented limit)', async () => {
    const inside = join(cwd, 'src', 'linked.ts')
    const [, version] = recorded(join(root, 'original.ts'))
    linkSync(join(root, 'original.ts'), inside)
    const { agent, producer } = await checked([[inside, version]])
    change(join(root, 'original.ts'))
    expect(await afterWrite(agent, producer)).toBe('')
    // Without the feed the same check stats the file and tells it.
    withdrawFeed(cwd, feed)
    expect(await afterWrite(agent, producer)).toContain('- src/linked.ts')
  })

  it('a feed that gave up is not used: every file is stat-ed', async () => {
    const a = recorded(join(cwd, 'src', 'a.ts'))
    const { agent, producer } = await checked([a])
    feed.close()
    change(a[0])
    expect(await afterWrite(agent, producer)).toContain('- src/a.ts')
  })
})
