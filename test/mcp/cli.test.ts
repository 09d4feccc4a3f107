import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { listMcpServers, trustMcpServers } from '../../src/cli/commands/mcp.js'
import { stdioFixture } from './fixture.js'

function project(settings: unknown, mcpJson?: unknown) {
  const cwd = mkdtempSync(join(tmpdir(), 'rein-mcp-cli-'))
  const home = mkdtempSync(join(tmpdir(), 'rein-mcp-cli-home-'))
  mkdirSync(home, { recursive: true })
  writeFileSync(join(home, 'settings.json'), JSON.stringify(settings))
  if (mcpJson) writeFileSync(join(cwd, '.mcp.json'), JSON.stringify(mcpJson))
  return { cwd, home }
}

async function list(cwd: string, home: string, json = false) {
  let out = ''
  let err = ''
  const code = await listMcpServers({ cwd, home, json, write: (t) => (out += t), writeError: (t) => (err += t) })
  return { code, out, err }
}

describe('rein mcp list', () => {
  it('shows each server with its state and tools, and reports failures on stderr', async () => {
    const fixture = stdioFixture()
    const { cwd, home } = project({
      mcpServers: {
        fixture: { command: fixture.command, args: fixture.args },
        broken: { command: process.execPath, args: [fixture.args![0], 'stdio', '--fail-on-start'] },
      },
    })
    const { code, out, err } = await list(cwd, home)
    expect(code).toBe(0)
    expect(out).toMatch(/^fixture \(stdio, settings\): connected, 8 tools$/m)
    expect(out).toMatch(/^ {2}mcp__fixture__echo +Echoes the text back\.$/m)
    expect(out).toMatch(/^broken \(stdio, settings\): failed — MCP server "broken" failed to start/m)
    expect(err).toContain('cannot open database')
  })

  it('prints JSON when asked', async () => {
    const fixture = stdioFixture()
    const { cwd, home } = project({ mcpServers: { fixture: { command: fixture.command, args: fixture.args } } })
    const { out } = await list(cwd, home, true)
    expect(JSON.parse(out)).toEqual([expect.objectContaining({ name: 'fixture', state: 'connected', transport: 'stdio', origin: 'settings' })])
  })

  it('lists untrusted project servers as untrusted with the command that trusts them, and connects them once trusted', async () => {
    const fixture = stdioFixture()
    const { cwd, home } = project({}, { mcpServers: { local: { command: fixture.command, args: fixture.args } } })
    const before = await list(cwd, home)
    expect(before.out).toMatch(/^local \(project, \.mcp\.json\): untrusted, not started$/m)
    expect(before.out).toContain('Run `rein trust ')
    expect(before.out).toContain('(or `rein mcp trust` for its servers alone)')
    expect(before.err).toBe('')
    const json = await list(cwd, home, true)
    expect(JSON.parse(json.out)).toEqual([expect.objectContaining({ name: 'local', state: 'untrusted', status: 'new' })])
    let said = ''
    expect(trustMcpServers({ cwd, home, write: (t) => (said += t) })).toBe(0)
    expect(said).toBe(`Trusted 1 project MCP server in ${cwd}: local.\n`)
    const after = await list(cwd, home)
    expect(after.out).toMatch(/^local \(stdio, project\): connected, 8 tools$/m)
    expect(after.err).toBe('')
  })
})
