import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { globTool } from '../../src/tools/glob.js'
import { makeWorkspace, textOf, type Workspace } from './tool-context.js'

// Every stat the glob tool makes, by path. tinyglobby itself stats only symbolic links (to follow them), and these
// trees have none, so this is every stat a glob costs.
const stats = vi.hoisted(() => ({ paths: [] as string[] }))
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>()
  const stat = ((file: Parameters<typeof real.stat>[0], ...rest: unknown[]) => {
    stats.paths.push(String(file))
    return (real.stat as (...args: unknown[]) => unknown)(file, ...rest)
  }) as typeof real.stat
  return { ...real, default: { ...real, stat }, stat }
})

let ws: Workspace
beforeEach(() => {
  ws = makeWorkspace()
  stats.paths = []
})
afterEach(async () => {
  await ws.dispose()
})

const put = (count: number) => {
  mkdirSync(path.join(ws.cwd, 'many'), { recursive: true })
  for (let i = 0; i < count; i++) writeFileSync(path.join(ws.cwd, 'many', `f${String(i).padStart(4, '0')}.ts`), '')
}
const filesStated = () => stats.paths.filter((p) => p.endsWith('.ts'))

describe('glob and stat', () => {
  it('returns the first 200 of 1,500 matches without statting any match', async () => {
    put(1500)
    const out = textOf(await ws.run(globTool, { pattern: '**/*.ts' }))
    expect(out).toMatch(/1500 files matched; showing the first 200 by path/)
    expect(filesStated()).toEqual([])
  })

  it('dates each match once when the list is shown whole (newest first)', async () => {
    put(150)
    await ws.run(globTool, { pattern: '**/*.ts' })
    expect(filesStated()).toHaveLength(150)
  })
})
