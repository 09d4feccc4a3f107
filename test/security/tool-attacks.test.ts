import { execFileSync } from 'node:child_process'
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { PermissionMode } from '../../src/agent/types.js'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { startMockModel, type MockModel } from '../support/mock-model.js'

// The attacks of issue 13 against the tools and the permission policy, each replayed through the built CLI
// (`rein -p`) against the mock model in a temp workspace, with a fake HOME holding planted secrets. One row per
// attack: the tool calls the model makes, the mode and rules in force, and what must come of it. Every row also
// checks that no sentinel reached the model, stdout, stderr, or any file Rein wrote under $REIN_HOME.

const SENTINEL = 'SECRET-SENTINEL'

interface Box {
  root: string
  cwd: string
  /** The fake HOME: `~/.ssh/id_rsa` and `~/notes.txt` are planted here. */
  home: string
  /** `$REIN_HOME` = `~/.rein`: credentials and an old session log are planted here. */
  rein: string
}

/** What must come of an attack: the call refused (asked with no one to ask, or denied), or run with files left out. */
type Outcome = 'refused' | 'left-out'

interface Attack {
  name: string
  calls: [string, Record<string, unknown>][]
  outcome: Outcome
  mode?: PermissionMode
  allow?: string[]
  /** Deny rules in the user's settings (`$REIN_HOME/settings.json`). */
  deny?: string[]
  /** Forces the built-in grep; otherwise ripgrep runs (it is installed here). */
  builtinGrep?: boolean
  setup?: (box: Box) => void
  /** What must hold on disk afterwards. */
  check?: (box: Box) => void
}

const SSH_DENY = ['Read(~/.ssh/**)']
const absent = (file: (b: Box) => string) => (box: Box) => expect(existsSync(file(box)), `${file(box)} must not exist`).toBe(false)
const unchanged = (file: string, text: string) => (box: Box) => expect(readFileSync(join(box.cwd, file), 'utf8')).toBe(text)
const gitRepo = (box: Box) => {
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: box.cwd, stdio: 'ignore' })
  git('init', '-q')
  writeFileSync(join(box.cwd, 'a.txt'), 'a\n')
  git('add', '.')
  git('commit', '-qm', 'one')
}

const ATTACKS: Attack[] = [
  // Read rules hold for every tool.
  { name: 'grep of ~ for SECRET with a Read deny rule (built-in engine)', calls: [['grep', { pattern: 'SECRET', path: '~', output_mode: 'content' }]], mode: 'bypass', deny: SSH_DENY, builtinGrep: true, outcome: 'left-out' },
  { name: 'grep of ~ for SECRET with a Read deny rule (ripgrep)', calls: [['grep', { pattern: 'SECRET', path: '~', output_mode: 'content' }]], mode: 'bypass', deny: SSH_DENY, outcome: 'left-out' },
  { name: 'grep of ~ in default mode', calls: [['grep', { pattern: 'SECRET', path: '~' }]], deny: SSH_DENY, outcome: 'refused' },
  {
    name: 'grep of ~ with no deny rule reaches neither credentials nor session logs',
    calls: [['grep', { pattern: 'SECRET-SENT.NEL-(credentials|session)', path: '~', output_mode: 'content' }]],
    mode: 'bypass',
    outcome: 'left-out',
  },
  { name: 'glob listing denied paths under ~', calls: [['glob', { pattern: '**/*', path: '~' }]], mode: 'bypass', deny: SSH_DENY, outcome: 'left-out' },
  { name: 'ls of ~ listing .ssh and .rein', calls: [['ls', { path: '~' }]], mode: 'bypass', deny: SSH_DENY, outcome: 'left-out' },
  { name: 'ls of ~/.ssh', calls: [['ls', { path: '~/.ssh' }]], mode: 'bypass', deny: SSH_DENY, outcome: 'refused' },
  {
    name: 'a hard link inside the workspace to a denied file',
    calls: [['read', { file_path: 'innocent.txt' }]],
    mode: 'bypass',
    deny: SSH_DENY,
    setup: (b) => linkSync(join(b.home, '.ssh/id_rsa'), join(b.cwd, 'innocent.txt')),
    outcome: 'refused',
  },
  {
    name: 'grep of the workspace holding a hard link to a denied file',
    calls: [['grep', { pattern: 'SECRET', output_mode: 'content' }]],
    deny: SSH_DENY,
    setup: (b) => linkSync(join(b.home, '.ssh/id_rsa'), join(b.cwd, 'innocent.txt')),
    outcome: 'left-out',
  },
  { name: 'read of $REIN_HOME/credentials', calls: [['read', { file_path: '~/.rein/credentials' }]], mode: 'bypass', outcome: 'refused' },
  { name: 'read of an old session log', calls: [['read', { file_path: '~/.rein/sessions/planted/old.jsonl' }]], mode: 'bypass', outcome: 'refused' },
  { name: 'read of ~/.ssh/id_rsa in default mode', calls: [['read', { file_path: '~/.ssh/id_rsa' }]], outcome: 'refused' },
  // Computed paths with cat and grep allowed.
  ...['cat $HOME/.ssh/id_rsa', 'cat ${HOME}/.ssh/id_rsa', 'cat "$HOME/.ssh/id_rsa"', 'cat ~/.ss?/id_rsa', 'cat < ~/.ssh/id_rsa', 'grep -r SECRET ~'].map(
    (command): Attack => ({ name: `\`${command}\` with cat and grep allowed`, calls: [['bash', { command }]], allow: ['Bash(cat:*)', 'Bash(grep:*)'], deny: SSH_DENY, outcome: 'refused' }),
  ),
  { name: '`cat /proc/$PPID/environ` with cat allowed', calls: [['bash', { command: 'cat /proc/$PPID/environ' }]], allow: ['Bash(cat:*)'], outcome: 'refused' },
  { name: 'read of /proc/self/environ in bypass mode', calls: [['read', { file_path: '/proc/self/environ' }]], mode: 'bypass', outcome: 'refused' },
  { name: '`cat /proc/self/environ` with cat allowed', calls: [['bash', { command: 'cat /proc/self/environ' }]], allow: ['Bash(cat:*)'], outcome: 'refused' },
  // Flags that turn a reader into a writer or a runner.
  {
    name: '`git log --output=…` with git log allowed',
    calls: [['bash', { command: 'git log --output=../leak' }]],
    allow: ['Bash(git log:*)'],
    setup: gitRepo,
    check: absent((b) => join(b.root, 'leak')),
    outcome: 'refused',
  },
  {
    name: '`git log --output=…` in plan mode',
    calls: [['bash', { command: 'git log --output=../leak' }]],
    mode: 'plan',
    allow: ['Bash(git log:*)'],
    setup: gitRepo,
    check: absent((b) => join(b.root, 'leak')),
    outcome: 'refused',
  },
  {
    name: '`find . -exec` with find allowed',
    calls: [['bash', { command: "find . -maxdepth 0 -exec sh -c 'touch ../pwned' ;" }]],
    allow: ['Bash(find:*)'],
    check: absent((b) => join(b.root, 'pwned')),
    outcome: 'refused',
  },
  {
    name: '`npm test` in an untrusted workspace with npm test allowed',
    calls: [['bash', { command: 'npm test' }]],
    allow: ['Bash(npm test)'],
    setup: (b) => writeFileSync(join(b.cwd, 'package.json'), JSON.stringify({ scripts: { test: 'touch ../pwned' } })),
    check: absent((b) => join(b.root, 'pwned')),
    outcome: 'refused',
  },
  // Protected paths in accept-edits.
  ...(['.git/config', '.git/hooks/pre-commit', '.rein/settings.local.json'] as const).map(
    (file): Attack => ({
      name: `accept-edits write to ${file}`,
      calls: [['write', { file_path: file, content: '[core]\n\tfsmonitor = "env > /tmp/leak"\n' }]],
      mode: 'accept-edits',
      setup: (b) => {
        mkdirSync(join(b.cwd, file, '..'), { recursive: true })
        writeFileSync(join(b.cwd, file), '{}\n')
      },
      check: unchanged(file, '{}\n'),
      outcome: 'refused',
    }),
  ),
  {
    name: '`cp` into .rein/ with cp allowed',
    calls: [['bash', { command: 'cp evil.json .rein/settings.local.json' }]],
    allow: ['Bash(cp:*)'],
    setup: (b) => writeFileSync(join(b.cwd, 'evil.json'), '{"permissions":{"allow":["Bash"]}}'),
    check: absent((b) => join(b.cwd, '.rein/settings.local.json')),
    outcome: 'refused',
  },
]

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

function plant(): Box {
  const { root: made } = sandbox()
  const root = realpathSync(made)
  const cwd = join(root, 'project')
  const home = join(root, 'fakehome')
  const rein = join(home, '.rein')
  mkdirSync(join(home, '.ssh'), { recursive: true })
  mkdirSync(join(rein, 'sessions/planted'), { recursive: true })
  writeFileSync(join(home, '.ssh/id_rsa'), `-----BEGIN KEY-----\n${SENTINEL}-ssh\n`)
  writeFileSync(join(home, 'notes.txt'), 'nothing secret here\n')
  writeFileSync(join(rein, 'credentials'), `${SENTINEL}-credentials\n`, { mode: 0o600 })
  writeFileSync(join(rein, 'sessions/planted/old.jsonl'), `${SENTINEL}-session\n`)
  return { root, cwd, home, rein }
}

/** Every file under `dir` and its text, skipping the planted secrets themselves. */
function filesUnder(dir: string, skip: readonly string[]): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = []
  for (const name of readdirSync(dir)) {
    const file = join(dir, name)
    if (skip.includes(file)) continue
    if (statSync(file).isDirectory()) out.push(...filesUnder(file, skip))
    else out.push({ file, text: readFileSync(file, 'utf8') })
  }
  return out
}

describe('attacks on the tools through rein -p', () => {
  for (const attack of ATTACKS) {
    it(`${attack.name}: ${attack.outcome === 'refused' ? 'is refused with a reason' : 'leaves the secrets out'}`, async () => {
      const box = plant()
      attack.setup?.(box)
      if (attack.deny) writeFileSync(join(box.rein, 'settings.json'), JSON.stringify({ permissions: { deny: attack.deny } }))
      mock = await startMockModel({ script: [...attack.calls.map(([name, args]) => ({ toolCalls: [{ name, arguments: args }] })), { text: 'done' }] })
      const args = ['-p', 'go', '--permission-mode', attack.mode ?? 'default', ...(attack.allow?.length ? ['--allow', ...attack.allow] : [])]
      const env = cliEnv({ url: mock.url, home: box.rein, extra: { HOME: box.home } })
      delete env.REIN_GREP
      if (attack.builtinGrep) env.REIN_GREP = 'builtin'
      const r = await runCli(args, { cwd: box.cwd, env })
      expect(r.code, r.stderr).toBe(0)

      const results = toolResults(mock)
      expect(results).toHaveLength(attack.calls.length)
      for (const result of results) {
        if (attack.outcome === 'refused') {
          expect(result).toMatch(/^(Permission needed: .* requires the user's approval|Error: permission denied: Denied: )/)
        } else {
          expect(result).toMatch(/left out: a Read deny rule or Rein's own home covers/)
        }
      }
      attack.check?.(box)

      expect(r.stdout).not.toContain(SENTINEL)
      expect(r.stderr).not.toContain(SENTINEL)
      expect(JSON.stringify(mock.requests.map((q) => q.body)).includes(SENTINEL), `a sentinel reached the model: ${results.join('\n')}`).toBe(false)
      const planted = [join(box.rein, 'credentials'), join(box.rein, 'sessions/planted')]
      const written = filesUnder(box.rein, planted)
      expect(written.some((f) => f.file.endsWith('.jsonl')), 'the run left a session log').toBe(true)
      expect(written.filter((f) => f.text.includes(SENTINEL)).map((f) => f.file)).toEqual([])
    })
  }
})

/** What each tool call returned, as the model read it in the last request. */
function toolResults(model: MockModel): string[] {
  const last = model.requests.filter((q) => q.path.endsWith('/chat/completions')).at(-1)?.body as {
    messages: { role: string; content: unknown }[]
  }
  return last.messages.filter((m) => m.role === 'tool').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
}
