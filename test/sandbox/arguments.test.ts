import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { bwrapArguments, type SandboxPlaces } from '../../src/sandbox/bwrap-args.js'
import { resolveDenials } from '../../src/sandbox/deny-paths.js'
import { DEFAULT_POLICY } from '../../src/sandbox/policy.js'
import { violationNote } from '../../src/sandbox/violations.js'

const root = realpathSync(mkdtempSync(join(tmpdir(), 'sandbox-args-')))
const home = join(root, 'home')
const workspace = join(root, 'work')
for (const dir of [join(home, '.ssh'), join(home, '.rein'), join(workspace, '.git/hooks'), join(workspace, 'config')]) mkdirSync(dir, { recursive: true })
writeFileSync(join(home, '.ssh/id_rsa'), 'k')
writeFileSync(join(home, '.netrc'), 'n')
writeFileSync(join(workspace, 'config/.env'), 'e')
writeFileSync(join(workspace, '.git/config'), '')

const places = (deniedPaths: string[] = []): SandboxPlaces => ({
  workspace, home, reinHome: join(home, '.rein'), sessionTmp: join(root, 'tmp'), agentSockets: [], deniedPaths,
})
const argsOf = (deniedPaths?: string[]) => bwrapArguments(DEFAULT_POLICY, places(deniedPaths), { seccompFd: 3, cwd: workspace })

describe('the bubblewrap argument list', () => {
  it('makes every namespace, drops capabilities and ends with the working directory and seccomp', () => {
    const args = argsOf()
    for (const flag of ['--unshare-user', '--unshare-pid', '--unshare-ipc', '--unshare-net', '--die-with-parent', '--new-session']) expect(args).toContain(flag)
    expect(args.join(' ')).toContain('--cap-drop ALL')
    expect(args.slice(-4)).toEqual(['--chdir', workspace, '--seccomp', '3'])
  })

  it('binds the workspace writable, then its hooks and config read-only', () => {
    const text = argsOf().join(' ')
    expect(text.indexOf(`--bind ${workspace} ${workspace}`)).toBeLessThan(text.indexOf(`--ro-bind ${workspace}/.git/hooks`))
    expect(text).toContain(`--ro-bind ${workspace}/.git/config ${workspace}/.git/config`)
  })

  it('keeps the hooks directory core.hooksPath names read-only, with its parents pinned', () => {
    mkdirSync(join(workspace, 'tools/husky'), { recursive: true })
    writeFileSync(join(workspace, '.git/config'), '[core]\n\thooksPath = tools/husky\n')
    const text = argsOf().join(' ')
    writeFileSync(join(workspace, '.git/config'), '')
    expect(text).toContain(`--bind ${workspace}/tools ${workspace}/tools`)
    expect(text).toContain(`--ro-bind ${workspace}/tools/husky ${workspace}/tools/husky`)
  })

  it('masks directories with a read-only tmpfs and files with /dev/null, after every bind', () => {
    const args = argsOf()
    const text = args.join(' ')
    expect(text).toContain(`--tmpfs ${home}/.ssh --remount-ro ${home}/.ssh`)
    expect(text).toContain(`--ro-bind /dev/null ${home}/.netrc`)
    expect(text).toContain(`--tmpfs ${home}/.rein --remount-ro ${home}/.rein`)
    expect(args.lastIndexOf('--bind')).toBeLessThan(args.indexOf('--remount-ro'))
  })

  it('drops a mask inside a masked directory and never masks the workspace itself', () => {
    const args = argsOf([join(home, '.ssh/id_rsa'), root])
    expect(args).not.toContain(join(home, '.ssh/id_rsa'))
    expect(args.filter((a) => a === root)).toEqual([])
  })

  it('resolves a Read deny glob to the files that exist now', () => {
    expect(resolveDenials(['**/.env', '~/.netrc', 'missing/file'], workspace, home).paths).toEqual([join(home, '.netrc'), join(workspace, 'config/.env')])
  })
})

describe('the violation note', () => {
  it('names a read-only path and a hidden one', () => {
    const note = violationNote(
      `bash: /etc/x: Read-only file system\ncat: ${home}/.ssh/id_rsa: No such file or directory\n`,
      [join(home, '.ssh')],
      [],
    )
    expect(note).toBe(
      `[sandbox] The sandbox kept /etc/x read-only; writable are the workspace (not its .git/hooks, .git/config or agent config), /tmp and what the user adds to sandbox.filesystem.allowWrite. The sandbox hides ${home}/.ssh/id_rsa (credentials and Read deny rules are masked).`,
    )
  })

  it('names each refused host once', () => {
    const refusal = { host: 'evil.example', reason: 'not-allowed' as const }
    expect(violationNote('', [], [refusal, refusal])).toBe('[sandbox] The sandbox refused a connection to evil.example (not in sandbox.network.allowedDomains).')
  })

  it('says nothing when nothing was stopped', () => {
    expect(violationNote('ls: cannot access nope: No such file or directory\n', [join(home, '.ssh')], [])).toBeUndefined()
  })
})
