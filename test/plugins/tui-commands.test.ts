import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { commandChoices, isCustomCommand } from '../../src/cli/tui/slash-commands.js'
import { resolvePlugins } from '../../src/plugins/sources.js'
import { promptRoots } from '../../src/plugins/roots.js'

const FIXTURES = resolve(import.meta.dirname, '../fixtures/plugins')

describe("the terminal UI and a session's plugins", () => {
  const cwd = mkdtempSync(join(tmpdir(), 'rein-plugins-tui-'))
  const roots = promptRoots(resolvePlugins({ cwd, home: join(cwd, 'home'), pluginDirs: [join(FIXTURES, 'feature-dev')], workspaceTrusted: false }))

  it('sends a plugin command as a custom command, by its namespaced and its bare name', () => {
    expect(isCustomCommand(cwd, 'feature-dev:feature-dev', roots)).toBe(true)
    expect(isCustomCommand(cwd, 'feature-dev', roots)).toBe(true)
    expect(isCustomCommand(cwd, 'feature-dev:feature-dev')).toBe(false)
  })

  it('completes it as plugin:command with its hint', () => {
    expect(commandChoices(cwd, roots)).toContainEqual({ name: 'feature-dev:feature-dev', hint: 'Optional feature description' })
  })
})
