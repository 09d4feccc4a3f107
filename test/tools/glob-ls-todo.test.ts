import { mkdirSync, utimesSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { globTool } from '../../src/tools/glob.js'
import { lsTool } from '../../src/tools/ls.js'
import { todoWriteTool } from '../../src/tools/todo-write.js'
import { makeWorkspace, textOf, type Workspace } from './tool-context.js'

let ws: Workspace
beforeEach(() => {
  ws = makeWorkspace()
})
afterEach(async () => {
  await ws.dispose()
})

const put = (name: string, ageSeconds = 0) => {
  const file = path.join(ws.cwd, name)
  mkdirSync(path.dirname(file), { recursive: true })
  writeFileSync(file, name)
  const t = new Date(Date.now() - ageSeconds * 1000)
  utimesSync(file, t, t)
}

describe('glob', () => {
  it('finds files newest first, skipping .git and node_modules', async () => {
    put('src/old.ts', 300)
    put('src/new.ts', 10)
    put('src/mid.ts', 100)
    put('node_modules/x/index.ts')
    put('.git/hooks/a.ts')
    const out = textOf(await ws.run(globTool, { pattern: '**/*.ts' }))
    expect(out.split('\n')).toEqual(['src/new.ts', 'src/mid.ts', 'src/old.ts'])
  })

  it('searches under a given path and caps the list with a note', async () => {
    for (let i = 0; i < 205; i++) put(`many/f${i}.txt`)
    const out = textOf(await ws.run(globTool, { pattern: '*.txt', path: 'many' }))
    expect(out.split('\n').filter((l) => l.startsWith('many/')).length).toBe(200)
    expect(out).toMatch(/205 files matched; showing the first 200 by path/)
  })

  it('over 200 matches, lists the first 200 by path whatever their age', async () => {
    for (let i = 0; i < 205; i++) put(`many/f${String(i).padStart(3, '0')}.txt`)
    const out = textOf(await ws.run(globTool, { pattern: '*.txt', path: 'many' })).split('\n')
    expect(out[0]).toBe('many/f000.txt')
    expect(out[199]).toBe('many/f199.txt')
  })

  it('says when nothing matched and when the path is not a directory', async () => {
    expect(textOf(await ws.run(globTool, { pattern: '*.none' }))).toBe('No files matched.')
    put('f.txt')
    const out = await ws.run(globTool, { pattern: '*', path: 'f.txt' })
    expect(out.isError).toBe(true)
  })
})

describe('ls', () => {
  it('lists entries sorted, directories marked with /', async () => {
    put('b.txt')
    put('a/inner.txt')
    put('.env')
    expect(textOf(await ws.run(lsTool, {}))).toBe('.env\na/\nb.txt')
  })

  it('explains a missing path and a file path', async () => {
    put('f.txt')
    expect(textOf(await ws.run(lsTool, { path: 'nope' }))).toMatch(/does not exist/)
    expect(textOf(await ws.run(lsTool, { path: 'f.txt' }))).toMatch(/is a file; use read/)
  })
})

describe('todo_write', () => {
  it('records the whole list as a todo/write event and confirms briefly', async () => {
    const todos = [
      { content: 'read the code', status: 'completed' as const },
      { content: 'fix the bug', status: 'in_progress' as const },
      { content: 'run the tests', status: 'pending' as const },
    ]
    const out = await ws.run(todoWriteTool, { todos })
    expect(ws.records).toEqual([{ type: 'todo/write', data: { todos } }])
    expect(textOf(out)).toBe('Todo list updated: 1 completed, 1 in progress, 1 pending.')
  })

  it('rejects an unknown status through its schema', () => {
    expect(todoWriteTool.schema.safeParse({ todos: [{ content: 'x', status: 'done' }] }).success).toBe(false)
  })
})
