import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { readPermissionUpdates } from '../../src/permissions/updates.js'
import { permissionUpdater } from '../../src/runtime/permission-updates.js'
import { sandbox } from '../support/cli.js'

const by = 'the test'

describe("a permission answer's updatedPermissions", () => {
  it('reads allow rules with their destination and a mode; other kinds and unknown destinations are one sentence each', () => {
    const updates = readPermissionUpdates(
      [
        { type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'npm test' }, { toolName: 'Read' }], behavior: 'allow', destination: 'session' },
        { type: 'addRules', rules: [{ toolName: 'Edit' }], behavior: 'allow', destination: 'cliArg' },
        { type: 'addRules', rules: [{ toolName: 'Write' }], behavior: 'allow', destination: 'userSettings' },
        { type: 'setMode', mode: 'acceptEdits', destination: 'session' },
        { type: 'addRules', rules: [{ toolName: 'Bash' }], behavior: 'deny', destination: 'session' },
        { type: 'removeDirectories', directories: ['/'], destination: 'session' },
        { type: 'addRules', rules: [{ toolName: 'Bash' }], behavior: 'allow', destination: 'managedSettings' },
        { type: 'addRules', rules: [{ toolName: 'not a tool!' }], behavior: 'allow', destination: 'session' },
        { type: 'setMode', mode: 'auto', destination: 'session' },
        'nonsense',
      ],
      by,
    )
    expect(updates.allow).toEqual([
      { rule: 'Bash(npm test)', destination: 'session' },
      { rule: 'Read', destination: 'session' },
      { rule: 'Edit', destination: 'session' },
      { rule: 'Write', destination: 'user' },
    ])
    expect(updates.mode).toBe('accept-edits')
    expect(updates.ignored).toEqual([
      'Rein applies only addRules (allow) and setMode from a permission answer; the addRules with behavior "deny" update from the test was ignored.',
      'Rein applies only addRules (allow) and setMode from a permission answer; the removeDirectories update from the test was ignored.',
      'The addRules update from the test names the destination "managedSettings", which is none of session, cliArg, localSettings, projectSettings, userSettings, so it was ignored.',
      expect.stringMatching(/^A rule in the addRules update from the test is not a permission rule \(.+\), so it was ignored\.$/),
      'The setMode update from the test names no mode Rein has (default, acceptEdits, plan, bypassPermissions), so it was ignored.',
      'An updatedPermissions entry from the test has no "type", so it was ignored.',
    ])
    expect(readPermissionUpdates({ type: 'addRules' }, by).ignored).toEqual(['The updatedPermissions from the test is not a list of permission updates, so it was ignored.'])
  })

  it('applies rules to the session at once and to the settings file of their layer, and switches the mode', () => {
    const box = sandbox()
    const session: string[] = []
    const modes: string[] = []
    const warnings: string[] = []
    const apply = permissionUpdater({ cwd: box.cwd, home: box.home, allowForSession: (r) => session.push(r), setMode: (m) => modes.push(m), warn: (m) => warnings.push(m) })
    apply(
      [
        { type: 'addRules', rules: [{ toolName: 'Read' }], behavior: 'allow', destination: 'session' },
        { type: 'addRules', rules: [{ toolName: 'Edit' }], behavior: 'allow', destination: 'localSettings' },
        { type: 'addRules', rules: [{ toolName: 'Glob' }], behavior: 'allow', destination: 'projectSettings' },
        { type: 'addRules', rules: [{ toolName: 'Grep' }], behavior: 'allow', destination: 'userSettings' },
        { type: 'setMode', mode: 'plan', destination: 'session' },
      ],
      by,
    )
    expect(session).toEqual(['Read', 'Edit', 'Glob', 'Grep'])
    expect(modes).toEqual(['plan'])
    expect(warnings).toEqual([])
    const allow = (file: string) => (JSON.parse(readFileSync(file, 'utf8')) as { permissions: { allow: string[] } }).permissions.allow
    expect(allow(join(box.cwd, '.rein', 'settings.local.json'))).toEqual(['Edit'])
    expect(allow(join(box.cwd, '.rein', 'settings.json'))).toEqual(['Glob'])
    expect(allow(join(box.home, 'settings.json'))).toEqual(['Grep'])
  })
})
