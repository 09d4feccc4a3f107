import { mkdtempSync, realpathSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ToolCallInfo } from '../../src/agent/extensions.js'
import { categoryOf } from '../../src/mcp/manager.js'
import { createPermissionPolicy } from '../../src/permissions/policy.js'
import { parseRule } from '../../src/permissions/rules.js'
import { builtinTools } from '../../src/tools/registry.js'
import type { ToolFacts } from '../../src/tools/tool.js'

describe('each tool declares its own facts', () => {
  it('every built-in tool names its category, read-only flag and Claude Code name, and no two share a name', () => {
    const tools = builtinTools()
    for (const tool of tools) {
      expect(['read', 'edit', 'exec', 'fetch', 'free', 'other'], tool.name).toContain(tool.category)
      expect(typeof tool.readOnly, tool.name).toBe('boolean')
      expect(tool.peerNames?.claudeCode, tool.name).toMatch(/^[A-Z][A-Za-z]+$/)
    }
    const peers = tools.map((t) => t.peerNames?.claudeCode)
    expect(new Set(peers).size).toBe(peers.length)
  })

  it('a tool that edits or reads a path declares which argument holds it, so rules and context can find it', () => {
    for (const tool of builtinTools().filter((t) => t.category === 'edit')) {
      expect(tool.target, tool.name).toEqual({ kind: 'file', argument: 'file_path' })
      const shape = (tool.schema as unknown as { shape: Record<string, unknown> }).shape
      expect(Object.keys(shape), tool.name).toContain(tool.target!.argument)
    }
  })

  it('a read-only tool is in the read or fetch category, and an edit or exec tool is never read-only', () => {
    for (const tool of builtinTools()) {
      if (tool.readOnly) expect(['read', 'fetch'], tool.name).toContain(tool.category)
      if (tool.category === 'edit' || tool.category === 'exec') expect(tool.readOnly, tool.name).toBe(false)
    }
  })

  it('permission rules accept each built-in tool by its own name or its Claude Code name, in any case', () => {
    expect(parseRule('bash(npm test)')).toMatchObject({ tool: 'Bash', pattern: 'npm test' })
    expect(parseRule('job_output')).toMatchObject({ tool: 'BashOutput' })
    expect(parseRule('webfetch(domain:example.com)')).toMatchObject({ tool: 'WebFetch' })
    expect(parseRule('Notebook(x)')).toEqual({ error: expect.stringMatching(/^"Notebook\(x\)" names an unknown tool "Notebook"; use one of .*Bash.*KillShell.* or mcp__server__tool$/) })
  })
})

describe('the policy reads a call’s facts from its tool, not from a list of names', () => {
  const cwd = realpathSync(mkdtempSync(path.join(tmpdir(), 'rein-facts-')))
  const policy = (mode: 'default' | 'plan' = 'default', deny: string[] = []) =>
    createPermissionPolicy({ cwd, settings: { permissions: { deny } }, getMode: () => mode, home: cwd, reinHome: path.join(cwd, '.rein-home') })
  const call = (name: string, input: Record<string, unknown>, tool?: ToolFacts): ToolCallInfo => ({
    turn: 1,
    step: 1,
    callId: 'c1',
    name,
    arguments: JSON.stringify(input),
    input,
    ...(tool ? { tool } : {}),
  })

  it('a tool Rein has never heard of that declares itself an edit of a file is guarded by Edit rules on that file', () => {
    const notebook: ToolFacts = { readOnly: false, category: 'edit', peerNames: { claudeCode: 'NotebookEdit' }, target: { kind: 'file', argument: 'notebook_path' } }
    const decision = policy('default', ['Edit(secret/**)']).decide(call('notebook_edit', { notebook_path: 'secret/a.ipynb' }, notebook))
    expect(decision.action).toBe('deny')
    expect(decision.reason).toMatch(/blocked by the permission rule Edit\(secret\/\*\*\)/)
    expect(policy().decide(call('notebook_edit', { notebook_path: 'open/a.ipynb' }, notebook))).toMatchObject({ action: 'ask', reason: expect.stringMatching(/^NotebookEdit open\/a\.ipynb/) })
  })

  it('a call of a name no tool has is treated as other: it asks, and plan mode refuses it', () => {
    expect(policy().decide(call('mystery', {})).action).toBe('ask')
    expect(policy('plan').decide(call('mystery', {})).action).toBe('deny')
  })

  it('an MCP tool that declares itself read-only in a closed world is a free read, even in plan mode', () => {
    const facts: ToolFacts = { readOnly: true, category: categoryOf({ readOnlyHint: true, openWorldHint: false }) }
    expect(policy('plan').decide(call('mcp__docs__search', { q: 'x' }, facts)).action).toBe('allow')
  })
})

describe('MCP tools take their category from their annotations', () => {
  it('maps the read-only and open-world hints to read, fetch or other', () => {
    expect(categoryOf({ readOnlyHint: true, openWorldHint: false })).toBe('read')
    expect(categoryOf({ readOnlyHint: true })).toBe('fetch')
    expect(categoryOf({ readOnlyHint: true, openWorldHint: true })).toBe('fetch')
    expect(categoryOf({ readOnlyHint: false, openWorldHint: false })).toBe('other')
    expect(categoryOf({ destructiveHint: false })).toBe('other')
    expect(categoryOf(undefined)).toBe('other')
  })
})
