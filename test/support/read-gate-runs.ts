import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterEach } from 'vitest'
import { cliEnv, runCli, sandbox, type CliResult } from './cli.js'
import { startMockModel, type MockModel, type MockResponse } from './mock-model.js'

/**
 * The harness of the read-gate attacks (test/security/read-gate.test.ts and read-gate-config.test.ts): a fresh workspace (a git
 * repository root), a private $REIN_HOME and a $HOME apart from it, the mock model, one `rein -p` run, and what the
 * model received and Rein wrote.
 */

export interface Box {
  root: string
  /** The workspace: a git repository root. */
  cwd: string
  /** `$REIN_HOME`. */
  reinHome: string
  /** `$HOME`, apart from `$REIN_HOME`, with its own `.ssh`. */
  userHome: string
  /** A path outside the workspace. */
  outside: (name: string) => string
}

export interface Run {
  run: CliResult
  box: Box
  mock: MockModel
  /** Every request body the model received, as JSON text. */
  requests: string
  /** Every file Rein wrote under $REIN_HOME (session logs included; not what the test planted), as text. */
  written: string
}

export interface Attack {
  name: string
  /** The secret the attack tries to get to the model. */
  secret: string
  plant: (box: Box) => void
  prompt?: string
  script?: (box: Box) => MockResponse[]
  args?: (box: Box) => string[]
  env?: Record<string, string>
  /** The one sentence the user must get (a substring of stderr). */
  notice: (box: Box) => string
}

export const SSH_KEY = 'SECRET-ssh-key-4b7e1d'
export const OUTSIDE = 'SECRET-outside-file-9c2a55'
export const DENY_SSH = { permissions: { deny: ['Read(~/.ssh/**)'] } }

export const write = (path: string, text: string): void => {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, text)
}
export const link = (target: string, path: string): void => {
  mkdirSync(dirname(path), { recursive: true })
  symlinkSync(target, path)
}
export const secretOutside = (box: Box, text = `${OUTSIDE}\n`): string => {
  write(box.outside('secret.txt'), text)
  return box.outside('secret.txt')
}
export const sshKey = (box: Box): string => {
  write(join(box.userHome, '.ssh', 'id_rsa'), `-----BEGIN KEY-----\n${SSH_KEY}\n`)
  write(join(box.reinHome, 'settings.json'), JSON.stringify(DENY_SSH))
  return join(box.userHome, '.ssh', 'id_rsa')
}
export const skillText = (secret: string) => `---\nname: leak\ndescription: ${secret}\n---\n${secret}\n`
export const agentText = (secret: string) => `---\nname: spy\ndescription: ${secret}\n---\n${secret}\n`
export const instruction = (box: Box, rel: string) => `The instruction file ${join(box.cwd, rel)} was not read: `
export const outsideOf = (target: string, folder: string) => `it is a link to ${target}, outside ${folder}`

let mock: MockModel | undefined

/** Closes each test's mock model after it; call once at the top of a test file that uses `replay`. */
export function closeMockAfterEach(): void {
  afterEach(async () => {
    await mock?.close()
    mock = undefined
  })
}

export async function replay(attack: Pick<Attack, 'plant' | 'prompt' | 'script' | 'args' | 'env'>): Promise<Run> {
  const made = sandbox()
  const root = realpathSync(made.root)
  const box: Box = {
    root,
    cwd: join(root, 'project'),
    reinHome: join(root, 'home'),
    userHome: join(root, 'user'),
    outside: (name) => join(root, `outside-${name}`),
  }
  mkdirSync(join(box.cwd, '.git'), { recursive: true })
  mkdirSync(box.userHome, { recursive: true })
  attack.plant(box)
  const planted = new Set(filesUnder(box.reinHome))
  mock = await startMockModel({ script: attack.script?.(box) ?? [{ text: 'done' }] })
  const env = cliEnv({ url: mock.url, home: box.reinHome, extra: { HOME: box.userHome, ...attack.env } })
  const run = await runCli(['-p', attack.prompt ?? 'go', ...(attack.args?.(box) ?? [])], { cwd: box.cwd, env })
  const requests = mock.requests.map((r) => JSON.stringify(r.body)).join('\n')
  const written = filesUnder(box.reinHome)
    .filter((file) => !planted.has(file))
    .map((file) => readFileSync(file, 'utf8'))
    .join('\n')
  return { run, box, mock, requests, written }
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    const info = lstatSync(path, { throwIfNoEntry: false })
    if (!info) return []
    return info.isDirectory() ? filesUnder(path) : info.isFile() ? [path] : []
  })
}
