import { describe, expect, it } from 'vitest'
import { builtinTools, createToolState, toolSchemas } from '../../src/tools/registry.js'

describe('tool registry', () => {
  it('gives every built-in tool a sorted, stable schema without $schema noise', () => {
    const schemas = toolSchemas(builtinTools())
    expect(schemas.map((s) => s.name)).toEqual([
      'bash',
      'edit',
      'exit_plan_mode',
      'glob',
      'grep',
      'job_kill',
      'job_output',
      'ls',
      'read',
      'skill',
      'todo_write',
      'web_fetch',
      'write',
    ])
    for (const s of schemas) {
      expect(s.parameters).not.toHaveProperty('$schema')
      expect(s.parameters.type).toBe('object')
    }
    expect(JSON.stringify(toolSchemas(builtinTools().reverse()))).toBe(JSON.stringify(schemas))
  })

  it('uses the common parameter names', () => {
    const props = (name: string) =>
      Object.keys((toolSchemas(builtinTools()).find((s) => s.name === name)!.parameters as { properties: object }).properties)
    expect(props('read')).toEqual(['file_path', 'offset', 'limit'])
    expect(props('edit')).toEqual(['file_path', 'old_string', 'new_string', 'replace_all'])
    expect(props('bash')).toEqual(['command', 'description', 'timeout', 'run_in_background'])
    expect(props('grep')).toEqual(['pattern', 'path', 'glob', 'output_mode', '-i', '-n', '-A', '-B', '-C'])
  })

  it('keeps all tool schemas within 1,800 tokens (bytes/4), leaving room for the system prompt under 2,500', () => {
    const bytes = Buffer.byteLength(JSON.stringify(toolSchemas(builtinTools())))
    expect(bytes / 4).toBeLessThan(1800)
  })

  it('always withholds the built-in secrets (the key, the store) and adds the configured ones', () => {
    const state = createToolState({ spillDir: '/tmp/x', secretEnv: ['A_TOKEN'] })
    expect([...state.secretEnv].sort()).toEqual(['A_TOKEN', 'DATABASE_URL', 'DEEPSEEK_API_KEY', 'PGPASSFILE', 'PGPASSWORD', 'PGSERVICEFILE', 'PGSSLKEY', 'REIN_STORE'])
  })
})
