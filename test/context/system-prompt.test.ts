import { describe, expect, it } from 'vitest'
import { systemPrompt } from '../../src/context/system-prompt.js'
import { builtinTools, toolSchemas } from '../../src/tools/registry.js'

describe('the system prompt', () => {
  it('names the model and the working directory', () => {
    const text = systemPrompt({ model: 'deepseek-v4-flash', cwd: '/home/u/project' })
    expect(text).toContain('deepseek-v4-flash')
    expect(text).toContain('/home/u/project')
  })

  it('is the same text every time for the same session, so the prefix stays cached', () => {
    const a = systemPrompt({ model: 'm', cwd: '/w' })
    const b = systemPrompt({ model: 'm', cwd: '/w' })
    expect(a).toBe(b)
  })

  it('holds no date, permission mode or instruction file contents', () => {
    const text = systemPrompt({ model: 'm', cwd: '/w' })
    expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}/)
    expect(text).not.toMatch(/\b(accept-edits|bypass)\b/)
    expect(text).not.toContain('Contents of')
  })

  it('stays small: under 800 estimated tokens (bytes / 4)', () => {
    const bytes = Buffer.byteLength(systemPrompt({ model: 'deepseek-v4-flash', cwd: '/home/user/projects/app' }))
    expect(bytes / 4).toBeLessThan(800)
  })

  it('leaves room for the next wave of tools: with every built-in tool schema it fits 1,339 estimated tokens', () => {
    const system = systemPrompt({ model: 'deepseek-v4-flash', cwd: '/home/user/projects/app' })
    const bytes = Buffer.byteLength(system) + Buffer.byteLength(JSON.stringify(toolSchemas(builtinTools())))
    expect(Math.ceil(bytes / 4)).toBeLessThanOrEqual(1339)
  })

  it('tells the model to read a file before changing it, and not to work around a denied call', () => {
    const text = systemPrompt({ model: 'm', cwd: '/w' })
    expect(text).toMatch(/never edit or overwrite a file you have not read/i)
    expect(text).toMatch(/denied, do not work around it/)
  })
})
