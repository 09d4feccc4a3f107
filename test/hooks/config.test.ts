import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadHookCatalog } from '../../src/hooks/catalog.js'
import { selectHandlers } from '../../src/hooks/dispatch.js'
import { trustFilePath } from '../../src/hooks/trust.js'
import { loadHooks } from '../../src/hooks/index.js'
import { claudeHooks, makeWorkspace, writeJson } from './support.js'

function load(ws: ReturnType<typeof makeWorkspace>, trustProjectHooks = false) {
  return loadHookCatalog({ cwd: ws.project, home: ws.home, userHome: ws.userHome, trustProjectHooks })
}

describe('loading hook configuration', () => {
  it('reads hooks from the user files of Claude Code, Codex and Rein, in that order', () => {
    const ws = makeWorkspace()
    writeJson(join(ws.userHome, '.claude', 'settings.json'), claudeHooks('PreToolUse', 'echo claude', 'Bash'))
    writeJson(join(ws.userHome, '.codex', 'hooks.json'), claudeHooks('PreToolUse', 'echo codex', '^Bash$'))
    writeJson(join(ws.home, 'settings.json'), { model: 'x', ...(claudeHooks('Stop', 'echo rein') as object) })
    const catalog = load(ws)
    expect(catalog.problems).toEqual([])
    expect(catalog.active.map((d) => [d.command, d.file.dialect, d.file.scope])).toEqual([
      ['echo claude', 'claude', 'user'],
      ['echo codex', 'codex', 'user'],
      ['echo rein', 'claude', 'user'],
    ])
  })

  it('finds the project files at the repository root when started in a subdirectory', () => {
    const ws = makeWorkspace()
    writeJson(join(ws.project, '.claude', 'settings.json'), claudeHooks('Stop', 'echo shared'))
    writeJson(join(ws.project, '.claude', 'settings.local.json'), claudeHooks('Stop', 'echo local'))
    writeJson(join(ws.project, '.codex', 'hooks.json'), claudeHooks('Stop', 'echo codex'))
    writeJson(join(ws.project, '.rein', 'settings.json'), claudeHooks('Stop', 'echo rein'))
    mkdirSync(join(ws.project, 'src', 'deep'), { recursive: true })
    const catalog = loadHookCatalog({ cwd: join(ws.project, 'src', 'deep'), home: ws.home, userHome: ws.userHome, trustProjectHooks: true })
    expect(catalog.projectDir).toBe(ws.project)
    expect(catalog.active.map((d) => d.command)).toEqual(['echo shared', 'echo local', 'echo codex', 'echo rein'])
  })

  it('reports a malformed file by name with its line and still loads the other files', () => {
    const ws = makeWorkspace()
    mkdirSync(join(ws.userHome, '.claude'), { recursive: true })
    writeFileSync(join(ws.userHome, '.claude', 'settings.json'), '{\n  "hooks": {\n    "Stop": [,]\n  }\n}')
    writeJson(join(ws.userHome, '.codex', 'hooks.json'), claudeHooks('Stop', 'echo codex'))
    const catalog = load(ws)
    expect(catalog.active.map((d) => d.command)).toEqual(['echo codex'])
    expect(catalog.problems).toHaveLength(1)
    expect(catalog.problems[0]).toMatch(/^Skipped .*\.claude\/settings\.json: it is not valid JSON \(.* line 3\); fix it/)
  })

  it('names the line of the mistake for truncated files and trailing garbage too', () => {
    const cases: [string, RegExp][] = [
      ['{\n  "hooks": {\n    "Stop": []\n  }\n', /on line 5\)/],
      ['{\n  "hooks": {}\n}\nextra', /on line 4\)/],
      ['not json at all', /on line 1\)/],
    ]
    for (const [text, expected] of cases) {
      const ws = makeWorkspace()
      mkdirSync(join(ws.userHome, '.codex'), { recursive: true })
      writeFileSync(join(ws.userHome, '.codex', 'hooks.json'), text)
      expect(load(ws).problems[0]).toMatch(expected)
    }
  })

  it('skips a group with an invalid matcher and keeps the valid groups of the same file', () => {
    const ws = makeWorkspace()
    writeJson(join(ws.userHome, '.claude', 'settings.json'), {
      hooks: {
        PreToolUse: [
          { matcher: 'Bash(', hooks: [{ type: 'command', command: 'echo bad' }] },
          { matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'echo good' }] },
        ],
      },
    })
    const catalog = load(ws)
    expect(catalog.active.map((d) => d.command)).toEqual(['echo good'])
    expect(catalog.problems).toEqual([expect.stringMatching(/PreToolUse group 1 of .*settings\.json: the matcher "Bash\(" is not a valid regular expression/)])
  })

  it('reports unsupported events, handler types, shapes and timeouts, one sentence each', () => {
    const ws = makeWorkspace()
    writeJson(join(ws.userHome, '.claude', 'settings.json'), {
      hooks: {
        PostCompact: [{ hooks: [{ type: 'command', command: 'echo sub' }] }],
        PermissionDenied: [{ hooks: [{ type: 'command', command: 'echo perm' }] }],
        Stop: [{ hooks: [{ type: 'prompt', prompt: 'is it done?' }, { type: 'command' }, { type: 'command', command: 'echo ok', timeout: -3 }] }],
        SessionStart: { hooks: [] },
      },
    })
    const catalog = load(ws)
    expect(catalog.active.map((d) => [d.command, d.timeoutSec])).toEqual([['echo ok', undefined]])
    expect(catalog.problems).toEqual([
      expect.stringMatching(/handler 1 of the Stop group 1 .*only "command" hooks, not "prompt"/),
      expect.stringMatching(/handler 2 of the Stop group 1 .*needs a "command" string/),
      expect.stringMatching(/timeout of handler 3 .*default of 600 s applies/),
      expect.stringMatching(/SessionStart hooks of .*must be a list/),
      expect.stringMatching(/Rein does not run PostCompact, PermissionDenied hooks/),
    ])
  })

  it('reports a file it cannot read and loads the rest', () => {
    if (process.getuid?.() === 0) return // root reads any file; the permission check cannot fail here.
    const ws = makeWorkspace()
    const path = join(ws.userHome, '.claude', 'settings.json')
    writeJson(path, claudeHooks('Stop', 'echo x'))
    chmodSync(path, 0o000)
    const catalog = load(ws)
    expect(catalog.problems[0]).toMatch(/could not be read \(EACCES\)/)
  })

  it('a settings file without hooks contributes nothing and is no problem', () => {
    const ws = makeWorkspace()
    writeJson(join(ws.home, 'settings.json'), { model: 'deepseek-v4-pro' })
    expect(load(ws)).toMatchObject({ active: [], problems: [] })
  })

  it('runs an identical command defined in several files once, the first in load order', () => {
    const ws = makeWorkspace()
    writeJson(join(ws.userHome, '.claude', 'settings.json'), claudeHooks('PostToolUse', 'npx prettier --write .', 'Edit', 30))
    writeJson(join(ws.userHome, '.codex', 'hooks.json'), claudeHooks('PostToolUse', 'npx prettier --write .', 'Edit'))
    writeJson(join(ws.home, 'settings.json'), claudeHooks('PostToolUse', 'echo other', '*'))
    const selected = selectHandlers(load(ws).active, 'PostToolUse', 'Edit')
    expect(selected.map((d) => [d.command, d.timeoutSec, d.file.dialect])).toEqual([
      ['npx prettier --write .', 30, 'claude'],
      ['echo other', undefined, 'claude'],
    ])
  })

  it('selects handlers by event and by matcher against the peer tool name', () => {
    const ws = makeWorkspace()
    writeJson(join(ws.userHome, '.claude', 'settings.json'), {
      hooks: {
        PreToolUse: [
          { matcher: 'Bash', hooks: [{ type: 'command', command: 'echo bash' }] },
          { matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'echo files' }] },
        ],
        PostToolUse: [{ hooks: [{ type: 'command', command: 'echo post' }] }],
      },
    })
    const active = load(ws).active
    expect(selectHandlers(active, 'PreToolUse', 'Write').map((d) => d.command)).toEqual(['echo files'])
    expect(selectHandlers(active, 'PreToolUse', 'Read')).toEqual([])
    expect(selectHandlers(active, 'PostToolUse', 'Read').map((d) => d.command)).toEqual(['echo post'])
  })
})

describe('trusting project hooks', () => {
  it('skips a new project hook and says how to trust it, while user hooks run', () => {
    const ws = makeWorkspace()
    writeJson(join(ws.userHome, '.claude', 'settings.json'), claudeHooks('Stop', 'echo user'))
    writeJson(join(ws.project, '.claude', 'settings.json'), claudeHooks('Stop', './guard.sh'))
    const catalog = load(ws)
    expect(catalog.active.map((d) => d.command)).toEqual(['echo user'])
    expect(catalog.untrusted.map((d) => d.command)).toEqual(['./guard.sh'])
    expect(catalog.problems).toEqual([])
    const loaded = loadHooks({ cwd: ws.project, home: ws.home, userHome: ws.userHome })
    // The skipped hook is named in the one workspace-trust notice (src/trust), not as a problem of its own.
    expect(loaded.problems).toEqual([])
    expect(loaded.untrusted.map((d) => d.command)).toEqual(['./guard.sh'])
    expect(loadHooks({ cwd: ws.project, home: ws.home, userHome: ws.userHome, workspaceTrusted: true }).untrusted).toEqual([])
  })

  it('trusting records the hash under REIN_HOME, and later loads run the hook without asking', () => {
    const ws = makeWorkspace()
    writeJson(join(ws.project, '.claude', 'settings.json'), claudeHooks('Stop', './guard.sh'))
    expect(load(ws, true).active.map((d) => d.command)).toEqual(['./guard.sh'])
    const later = load(ws)
    expect(later.active.map((d) => d.command)).toEqual(['./guard.sh'])
    expect(later.problems).toEqual([])
    expect(trustFilePath(ws.home)).toBe(join(ws.home, 'trusted-hooks.json'))
  })

  it('changing a trusted definition (command, matcher or timeout) makes it untrusted again', () => {
    const ws = makeWorkspace()
    const file = join(ws.project, '.claude', 'settings.json')
    writeJson(file, claudeHooks('PreToolUse', './guard.sh', 'Bash'))
    load(ws, true)
    for (const changed of [claudeHooks('PreToolUse', './guard.sh --strict', 'Bash'), claudeHooks('PreToolUse', './guard.sh', 'Bash|Edit'), claudeHooks('PreToolUse', './guard.sh', 'Bash', 5)]) {
      writeJson(file, changed)
      expect(load(ws).untrusted).toHaveLength(1)
    }
    writeJson(file, claudeHooks('PreToolUse', './guard.sh', 'Bash'))
    expect(load(ws).untrusted).toEqual([])
  })

  it('the same command in another project is not trusted by trusting this one', () => {
    const ws = makeWorkspace()
    writeJson(join(ws.project, '.claude', 'settings.json'), claudeHooks('Stop', './guard.sh'))
    load(ws, true)
    const other = join(ws.root, 'other')
    mkdirSync(join(other, '.git'), { recursive: true })
    writeJson(join(other, '.claude', 'settings.json'), claudeHooks('Stop', './guard.sh'))
    const catalog = loadHookCatalog({ cwd: other, home: ws.home, userHome: ws.userHome })
    expect(catalog.untrusted).toHaveLength(1)
  })

  it('a damaged trust file trusts nothing and is replaced whole by the next trust', () => {
    const ws = makeWorkspace()
    writeJson(join(ws.project, '.claude', 'settings.json'), claudeHooks('Stop', './guard.sh'))
    writeFileSync(trustFilePath(ws.home), '{"hooks": [1, 2')
    expect(load(ws).untrusted).toHaveLength(1)
    load(ws, true)
    expect(load(ws).untrusted).toEqual([])
  })
})
