import { execFileSync } from 'node:child_process'
import { linkSync, mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { gateDirectory, readGated, readJudgedFile, skippedNotice, type GatedFile, type GateFolder, type Refusal } from '../../src/fs/read-gate.js'
import { createReadGuard } from '../../src/permissions/read-guard.js'
import { parseRules } from '../../src/permissions/rules.js'

let root: string
let repo: string
let outside: string
let server: Server | undefined
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'rein-gate-')))
  repo = join(root, 'repo')
  outside = join(root, 'outside')
  mkdirSync(repo)
  mkdirSync(outside)
  writeFileSync(join(outside, 'secret.txt'), 'SECRET-OUTSIDE\n')
})
afterEach(async () => {
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()))
  server = undefined
  rmSync(root, { recursive: true, force: true })
})

const noRules: Refusal = () => undefined
const inRepo: () => GateFolder = () => ({ dir: repo, base: repo })
const gate = (path: string, folder: GateFolder = inRepo(), refuses: Refusal = noRules, maxBytes?: number): GatedFile =>
  readGated(path, { folder, refuses, ...(maxBytes === undefined ? {} : { maxBytes }) })
const reasonOf = (read: GatedFile): string => (read.kind === 'skipped' ? read.reason : `not skipped but ${read.kind}`)
const textOf = (read: GatedFile): string => (read.kind === 'read' ? read.bytes.toString('utf8') : `not read but ${read.kind}${read.kind === 'skipped' ? `: ${read.reason}` : ''}`)

describe('the read gate reads what stays in its folder', () => {
  it('reads a regular file inside its folder, with its real path', () => {
    writeFileSync(join(repo, 'AGENTS.md'), 'Use tabs.\n')
    const read = gate(join(repo, 'AGENTS.md'))
    expect(textOf(read)).toBe('Use tabs.\n')
    expect(read.kind === 'read' && read.real).toBe(join(repo, 'AGENTS.md'))
  })

  it('reads through a link to a file in the same folder (CLAUDE.md -> AGENTS.md)', () => {
    writeFileSync(join(repo, 'AGENTS.md'), 'Shared rules.\n')
    symlinkSync('AGENTS.md', join(repo, 'CLAUDE.md'))
    expect(textOf(gate(join(repo, 'CLAUDE.md')))).toBe('Shared rules.\n')
  })

  it('reads through a link to a file deeper in the folder and through a linked folder that stays inside it', () => {
    mkdirSync(join(repo, 'docs'))
    writeFileSync(join(repo, 'docs', 'agents.md'), 'Deep rules.\n')
    symlinkSync('docs/agents.md', join(repo, 'AGENTS.md'))
    symlinkSync('docs', join(repo, 'pkg'))
    expect(textOf(gate(join(repo, 'AGENTS.md')))).toBe('Deep rules.\n')
    expect(textOf(gate(join(repo, 'pkg', 'agents.md')))).toBe('Deep rules.\n')
  })

  it('reads from a folder that is itself a link when the folder is its own base (a user keeps theirs anywhere)', () => {
    mkdirSync(join(outside, 'commands'))
    writeFileSync(join(outside, 'commands', 'review.md'), 'Review.\n')
    symlinkSync(join(outside, 'commands'), join(root, 'commands'))
    const folder = { dir: join(root, 'commands'), base: join(root, 'commands') }
    expect(textOf(gate(join(root, 'commands', 'review.md'), folder))).toBe('Review.\n')
  })

  it('calls a file that is not there, or a folder that is not there, absent without a reason', () => {
    expect(gate(join(repo, 'AGENTS.md')).kind).toBe('absent')
    expect(gate(join(repo, 'nope', 'AGENTS.md')).kind).toBe('absent')
    expect(gate(join(root, 'none', 'x.md'), { dir: join(root, 'none'), base: join(root, 'none') }).kind).toBe('absent')
  })
})

describe('the read gate skips, with the reason, a file whose real path leaves its folder', () => {
  it('skips an absolute link to a file outside the folder', () => {
    symlinkSync(join(outside, 'secret.txt'), join(repo, 'AGENTS.md'))
    expect(reasonOf(gate(join(repo, 'AGENTS.md')))).toBe(`it is a link to ${join(outside, 'secret.txt')}, outside ${repo}`)
  })

  it('skips a relative link that climbs out of the folder', () => {
    symlinkSync('../outside/secret.txt', join(repo, 'AGENTS.md'))
    expect(reasonOf(gate(join(repo, 'AGENTS.md')))).toBe(`it is a link to ${join(outside, 'secret.txt')}, outside ${repo}`)
  })

  it('skips a link to a link that ends outside', () => {
    symlinkSync(join(outside, 'secret.txt'), join(repo, 'hop'))
    symlinkSync('hop', join(repo, 'AGENTS.md'))
    expect(reasonOf(gate(join(repo, 'AGENTS.md')))).toContain(`outside ${repo}`)
  })

  it('skips a file in a subfolder that is a link to elsewhere (sub -> /elsewhere, sub/AGENTS.md)', () => {
    writeFileSync(join(outside, 'AGENTS.md'), 'SECRET\n')
    symlinkSync(outside, join(repo, 'sub'))
    expect(reasonOf(gate(join(repo, 'sub', 'AGENTS.md')))).toBe(`its real path ${join(outside, 'AGENTS.md')} is outside ${repo} (a folder on the way is a link)`)
  })

  it('skips every file of a folder that is a link out of its base (.claude/commands -> /elsewhere)', () => {
    writeFileSync(join(outside, 'review.md'), 'SECRET\n')
    mkdirSync(join(repo, '.claude'))
    symlinkSync(outside, join(repo, '.claude', 'commands'))
    const folder = { dir: join(repo, '.claude', 'commands'), base: repo }
    expect(reasonOf(gate(join(repo, '.claude', 'commands', 'review.md'), folder))).toContain(`is outside ${join(repo, '.claude', 'commands')}`)
    expect(gateDirectory(join(repo, '.claude', 'commands'), folder)).toEqual({ kind: 'skipped', reason: `it is a link to ${outside}, outside ${join(repo, '.claude', 'commands')}` })
  })

  it('skips a link that leaves a linked base folder (.claude -> /elsewhere)', () => {
    mkdirSync(join(outside, 'commands'))
    writeFileSync(join(outside, 'commands', 'review.md'), 'SECRET\n')
    symlinkSync(outside, join(repo, '.claude'))
    const folder = { dir: join(repo, '.claude', 'commands'), base: repo }
    expect(reasonOf(gate(join(repo, '.claude', 'commands', 'review.md'), folder))).toContain('a folder on the way is a link')
  })

  it('skips a link to a process environment as not a file on disk', () => {
    symlinkSync('/proc/self/environ', join(repo, 'AGENTS.md'))
    expect(reasonOf(gate(join(repo, 'AGENTS.md')))).toMatch(/^it leads to \/proc\/\d+\/environ, which is not a file on disk$/)
  })

  it('skips links to devices and kernel files even when the folder is the whole disk', () => {
    symlinkSync('/dev/zero', join(repo, 'zero.md'))
    symlinkSync('/proc/version', join(repo, 'version.md'))
    const everywhere = { dir: '/', base: '/' }
    expect(reasonOf(gate(join(repo, 'zero.md'), everywhere))).toBe('it leads to /dev/zero, which is not a file on disk')
    expect(reasonOf(gate(join(repo, 'version.md'), everywhere))).toBe('it leads to /proc/version, which is not a file on disk')
  })

  it('skips a path that is not inside the folder at all', () => {
    expect(reasonOf(gate(join(outside, 'secret.txt')))).toBe(`it is outside ${repo}`)
  })

  it('skips a link to nothing and a link loop, each with its own reason', () => {
    symlinkSync('missing.md', join(repo, 'CLAUDE.md'))
    symlinkSync('loop-b', join(repo, 'loop-a'))
    symlinkSync('loop-a', join(repo, 'loop-b'))
    expect(reasonOf(gate(join(repo, 'CLAUDE.md')))).toBe('it is a link to missing.md, which does not exist')
    expect(reasonOf(gate(join(repo, 'loop-a')))).toBe('it is a link that leads back to itself')
  })
})

describe('the read gate skips what the read guard refuses', () => {
  it('asks the guard about the path as named and about the real path', () => {
    mkdirSync(join(repo, 'private'))
    writeFileSync(join(repo, 'private', 'notes.md'), 'SECRET\n')
    symlinkSync('private/notes.md', join(repo, 'AGENTS.md'))
    const asked: string[] = []
    const refuses: Refusal = (p) => {
      asked.push(p)
      return p.includes('/private/') ? 'the permission rule Read(./private/**) covers it' : undefined
    }
    expect(reasonOf(gate(join(repo, 'AGENTS.md'), inRepo(), refuses))).toBe('the permission rule Read(./private/**) covers it')
    expect(asked).toEqual([join(repo, 'AGENTS.md'), join(repo, 'private', 'notes.md')])
  })

  it('skips a hard link to a file a Read deny rule covers, through the permission policy’s guard', () => {
    const home = join(root, 'home')
    mkdirSync(join(home, '.ssh'), { recursive: true })
    writeFileSync(join(home, '.ssh', 'id_rsa'), 'PRIVATE KEY\n')
    linkSync(join(home, '.ssh', 'id_rsa'), join(repo, 'AGENTS.md'))
    const guard = createReadGuard({ deny: parseRules(['Read(~/.ssh/**)']), allow: () => [], match: { cwd: repo, home, workspaceTrusted: false }, reinHome: join(root, 'rein') })
    expect(reasonOf(gate(join(repo, 'AGENTS.md'), inRepo(), guard.refusesLoading))).toBe('it is a hard link to a file the permission rule Read(~/.ssh/**) covers')
  })

  it('lets the user’s own prompt files in Rein’s home through the loading guard, which the tools’ guard refuses', () => {
    const reinHome = join(root, 'rein')
    mkdirSync(reinHome)
    writeFileSync(join(reinHome, 'AGENTS.md'), 'User rule.\n')
    const guard = createReadGuard({ deny: [], allow: () => [], match: { cwd: repo, home: root, workspaceTrusted: false }, reinHome })
    const folder = { dir: reinHome, base: reinHome }
    expect(textOf(gate(join(reinHome, 'AGENTS.md'), folder, guard.refusesLoading))).toBe('User rule.\n')
    expect(reasonOf(gate(join(reinHome, 'AGENTS.md'), folder, guard.refuses))).toContain("it is in Rein's own home")
  })

  it('refuses a link from the user-wide AGENTS.md to Rein’s credentials, though both are in Rein’s home', () => {
    const reinHome = join(root, 'rein')
    mkdirSync(reinHome)
    writeFileSync(join(reinHome, 'credentials'), 'DEEPSEEK_API_KEY=sk-secret\n')
    symlinkSync('credentials', join(reinHome, 'AGENTS.md'))
    const guard = createReadGuard({ deny: [], allow: () => [], match: { cwd: repo, home: root, workspaceTrusted: false }, reinHome })
    expect(reasonOf(gate(join(reinHome, 'AGENTS.md'), { dir: reinHome, base: reinHome }, guard.refusesLoading))).toBe(
      `it is in Rein's own home (${reinHome}), which holds sessions and credentials`,
    )
  })
})

describe('the read gate reads only regular files, never blocking', () => {
  it('skips a named pipe at once instead of waiting for a writer', () => {
    execFileSync('mkfifo', [join(repo, 'AGENTS.md')])
    expect(reasonOf(gate(join(repo, 'AGENTS.md')))).toBe('it is a named pipe (FIFO), not a file')
  })

  it('skips a link to a named pipe inside the folder', () => {
    execFileSync('mkfifo', [join(repo, 'pipe')])
    symlinkSync('pipe', join(repo, 'CLAUDE.md'))
    expect(reasonOf(gate(join(repo, 'CLAUDE.md')))).toBe('it is a named pipe (FIFO), not a file')
  })

  it('skips a socket', async () => {
    server = createServer()
    await new Promise<void>((done) => server!.listen(join(repo, 'AGENTS.md'), done))
    expect(reasonOf(gate(join(repo, 'AGENTS.md')))).toBe('it is a socket, not a file')
  })

  it('skips a directory named like a file', () => {
    mkdirSync(join(repo, 'CLAUDE.md'))
    expect(reasonOf(gate(join(repo, 'CLAUDE.md')))).toBe('it is a directory, not a file')
  })

  it('skips a file larger than the cap, saying both sizes', () => {
    writeFileSync(join(repo, 'AGENTS.md'), 'x'.repeat(11))
    expect(reasonOf(gate(join(repo, 'AGENTS.md'), inRepo(), noRules, 10))).toBe('it is 11 bytes, more than the 10 Rein reads of such a file')
    expect(textOf(gate(join(repo, 'AGENTS.md'), inRepo(), noRules, 11))).toBe('x'.repeat(11))
  })

  it('reads a judged @path file through the same checks: a pipe is skipped, a file is read', () => {
    execFileSync('mkfifo', [join(outside, 'pipe')])
    expect(reasonOf(readJudgedFile(join(outside, 'pipe'), 100))).toBe('it is a named pipe (FIFO), not a file')
    expect(textOf(readJudgedFile(join(outside, 'secret.txt'), 100))).toBe('SECRET-OUTSIDE\n')
  })
})

describe('the file read is the file checked', () => {
  it('skips a file swapped for a link to elsewhere after its checks', () => {
    writeFileSync(join(repo, 'AGENTS.md'), 'Fine.\n')
    const swap: Refusal = (p) => {
      unlinkSync(p)
      symlinkSync(join(outside, 'secret.txt'), p)
      return undefined
    }
    expect(reasonOf(gate(join(repo, 'AGENTS.md'), inRepo(), swap))).toBe('it changed into a link while Rein opened it')
  })

  it('skips a file whose folder was swapped for a link to elsewhere after its checks', () => {
    mkdirSync(join(repo, 'sub'))
    writeFileSync(join(repo, 'sub', 'AGENTS.md'), 'Fine.\n')
    writeFileSync(join(outside, 'AGENTS.md'), 'SECRET\n')
    let swapped = false
    const swap: Refusal = () => {
      if (!swapped) {
        renameSync(join(repo, 'sub'), join(repo, 'sub-old'))
        symlinkSync(outside, join(repo, 'sub'))
        swapped = true
      }
      return undefined
    }
    expect(reasonOf(gate(join(repo, 'sub', 'AGENTS.md'), inRepo(), swap))).toBe('it changed while Rein opened it')
  })
})

describe('folders a loader walks into', () => {
  it('lets a folder inside its base be walked, linked or not, and calls a file where a folder is looked for absent', () => {
    mkdirSync(join(repo, 'cmds', 'team'), { recursive: true })
    symlinkSync('team', join(repo, 'cmds', 'alias'))
    writeFileSync(join(repo, 'cmds', 'file'), '')
    const folder = { dir: join(repo, 'cmds'), base: repo }
    expect(gateDirectory(join(repo, 'cmds', 'team'), folder)).toEqual({ kind: 'ok', real: join(repo, 'cmds', 'team') })
    expect(gateDirectory(join(repo, 'cmds', 'alias'), folder)).toEqual({ kind: 'ok', real: join(repo, 'cmds', 'team') })
    expect(gateDirectory(join(repo, 'cmds', 'file'), folder)).toEqual({ kind: 'absent' })
  })

  it('refuses a subfolder linked out of the folder', () => {
    mkdirSync(join(repo, 'cmds'))
    symlinkSync(outside, join(repo, 'cmds', 'team'))
    expect(gateDirectory(join(repo, 'cmds', 'team'), { dir: join(repo, 'cmds'), base: repo })).toEqual({
      kind: 'skipped',
      reason: `it is a link to ${outside}, outside ${join(repo, 'cmds')}`,
    })
  })
})

describe('the notice for a skipped file', () => {
  it('names the kind of file, the file and the reason in one sentence', () => {
    expect(skippedNotice('command file', '.claude/commands/review.md', 'it is a named pipe (FIFO), not a file')).toBe(
      'The command file .claude/commands/review.md was not read: it is a named pipe (FIFO), not a file.',
    )
  })
})
