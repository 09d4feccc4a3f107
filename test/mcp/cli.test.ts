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

  it('says untrusted project servers need `rein mcp trust`, and lists them once trusted', async () => {
    const fixture = stdioFixture()
    const { cwd, home } = project({}, { mcpServers: { local: { command: fixture.command, args: fixture.args } } })
    const before = await list(cwd, home)
    expect(before.out).toMatch(/^No MCP servers are configured/)
    expect(before.err).toContain('run `rein mcp trust` to allow it')
    let said = ''
    expect(trustMcpServers({ cwd, home, write: (t) => (said += t) })).toBe(0)
    expect(said).toBe(`Trusted 1 project MCP server in ${cwd}: local.\n`)
    const after = await list(cwd, home)
    expect(after.out).toMatch(/^local \(stdio, project\): connected, 8 tools$/m)
    expect(after.err).toBe('')
  })
})
