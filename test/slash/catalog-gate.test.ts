import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { commandFolders, loadCommands } from '../../src/prompt-files/commands/catalog.js'
import { offeredCommands } from '../../src/prompt-files/commands/listing.js'

let base: string
let cwd: string
let reinHome: string
let userHome: string
let outside: string
beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'rein-cmd-gate-')))
  cwd = join(base, 'project')
  reinHome = join(base, 'rein')
  userHome = join(base, 'user')
  outside = join(base, 'outside')
  for (const dir of [join(cwd, '.claude', 'commands'), reinHome, userHome, outside]) mkdirSync(dir, { recursive: true })
  writeFileSync(join(outside, 'review.md'), 'SECRET\n')
})
afterEach(() => rmSync(base, { recursive: true, force: true }))

const noRules = () => undefined
const commands = join('.claude', 'commands')
const load = (refuses: (p: string) => string | undefined = noRules) => loadCommands(commandFolders({ cwd, reinHome, userHome }), refuses)

describe('command files pass the read gate', () => {
  it('a command file linked out of its folder is one problem and no command', () => {
    symlinkSync(join(outside, 'review.md'), join(cwd, commands, 'review.md'))
    const catalog = load()
    expect(catalog.find('review')).toBeUndefined()
    expect(catalog.problems).toEqual([`The command file ${join(commands, 'review.md')} was not read: it is a link to ${join(outside, 'review.md')}, outside ${join(cwd, commands)}.`])
  })

  it('a command file linked elsewhere in the workspace, but out of the commands folder, is not read either', () => {
    writeFileSync(join(cwd, 'prompt.md'), 'In the workspace.\n')
    symlinkSync('../../prompt.md', join(cwd, commands, 'review.md'))
    expect(load().problems).toEqual([`The command file ${join(commands, 'review.md')} was not read: it is a link to ${join(cwd, 'prompt.md')}, outside ${join(cwd, commands)}.`])
  })

  it('a command linked to another file in its folder loads under both names', () => {
    writeFileSync(join(cwd, commands, 'review.md'), 'Review it.\n')
    symlinkSync('review.md', join(cwd, commands, 'r.md'))
    const catalog = load()
    expect(catalog.find('r')?.body).toBe('Review it.\n')
    expect(catalog.problems).toEqual([])
  })

  it('a linked commands folder is one problem, and none of its files is read', () => {
    rmSync(join(cwd, '.claude'), { recursive: true })
    mkdirSync(join(cwd, '.claude'))
    symlinkSync(outside, join(cwd, commands))
    const catalog = load()
    expect(catalog.commands).toEqual([])
    expect(catalog.problems).toEqual([`The commands folder ${commands} was not read: it is a link to ${outside}, outside ${join(cwd, commands)}.`])
  })

  it('a user’s commands folder may be a link (they keep it where they like), but its files may not link out', () => {
    mkdirSync(join(outside, 'mine'))
    writeFileSync(join(outside, 'mine', 'fix.md'), 'Fix it.\n')
    symlinkSync(join(outside, 'review.md'), join(outside, 'mine', 'leak.md'))
    symlinkSync(join(outside, 'mine'), join(reinHome, 'commands'))
    const catalog = load()
    expect(catalog.find('fix')?.scope).toBe('user')
    expect(catalog.find('leak')).toBeUndefined()
    expect(catalog.problems).toEqual([`The command file ${join(reinHome, 'commands', 'leak.md')} was not read: it is a link to ${join(outside, 'review.md')}, outside ${join(reinHome, 'commands')}.`])
  })

  it('a FIFO named like a command is one problem, without waiting for a writer', () => {
    execFileSync('mkfifo', [join(cwd, commands, 'review.md')])
    expect(load().problems).toEqual([`The command file ${join(commands, 'review.md')} was not read: it is a named pipe (FIFO), not a file.`])
  })

  it('asks the read guard about each command file', () => {
    writeFileSync(join(cwd, commands, 'review.md'), 'Review it.\n')
    const catalog = load((p) => (p.endsWith('review.md') ? 'the permission rule Read(./.claude/**) covers it' : undefined))
    expect(catalog.problems).toEqual([`The command file ${join(commands, 'review.md')} was not read: the permission rule Read(./.claude/**) covers it.`])
  })

  it('the front ends’ listing, which runs without an agent, applies the settings’ Read deny rules and the links rule', () => {
    writeFileSync(join(reinHome, 'settings.json'), JSON.stringify({ permissions: { deny: ['Read(./.claude/commands/private.md)'] } }))
    writeFileSync(join(cwd, commands, 'private.md'), 'Private.\n')
    writeFileSync(join(cwd, commands, 'fix.md'), 'Fix it.\n')
    symlinkSync(join(outside, 'review.md'), join(cwd, commands, 'review.md'))
    const { offered } = offeredCommands(cwd, () => false, { REIN_HOME: reinHome, HOME: userHome })
    expect(offered.map((c) => c.name)).toEqual(['fix'])
  })
})
