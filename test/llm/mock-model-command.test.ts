import { Command } from 'commander'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { registerMockModelCommand } from '../../src/cli/commands/mock-model.js'
import { adapterFor, ask, eventually, requestOf, userSays } from './helpers.js'

function program(): Command {
  const root = new Command('rein').exitOverride()
  registerMockModelCommand(root)
  return root
}

function capture(stream: NodeJS.WriteStream): string[] {
  const lines: string[] = []
  vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk))
    return true
  })
  return lines
}

afterEach(() => {
  vi.restoreAllMocks()
  process.exitCode = undefined
})

describe('rein mock-model', () => {
  it('prints its URL, answers from the script, records to a file and stops on SIGINT', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rein-mock-cmd-'))
    writeFileSync(join(dir, 'script.json'), JSON.stringify([{ text: 'scripted hello' }]))
    const stdout = capture(process.stdout)
    capture(process.stderr)
    const done = program().parseAsync(['mock-model', '--script', join(dir, 'script.json'), '--record', join(dir, 'rec.jsonl')], { from: 'user' })
    await eventually(() => stdout.length > 0, 'the URL was printed')
    const url = stdout[0].trim()
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)

    const result = await ask(adapterFor('chat', url), requestOf([userSays('hi')]))
    expect(result.message.content).toEqual([{ type: 'text', text: 'scripted hello' }])

    process.emit('SIGINT')
    await done
    expect(JSON.parse(readFileSync(join(dir, 'rec.jsonl'), 'utf8')).path).toBe('/chat/completions')
  })

  it('refuses a script that is not valid JSON with one sentence and exit code 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rein-mock-cmd-'))
    writeFileSync(join(dir, 'bad.json'), '[{"text": ')
    const stderr = capture(process.stderr)
    await program().parseAsync(['mock-model', '--script', join(dir, 'bad.json')], { from: 'user' })
    expect(process.exitCode).toBe(1)
    expect(stderr.join('')).toMatch(/^The script .*bad\.json is not valid JSON \(.*\); fix it and try again\.\n$/)
  })

  it('refuses a missing script file and a bad port', async () => {
    const stderr = capture(process.stderr)
    await program().parseAsync(['mock-model', '--script', '/nonexistent/script.json'], { from: 'user' })
    expect(stderr.join('')).toMatch(/Cannot read the script \/nonexistent\/script\.json \(ENOENT\); check the path\./)
    await program().parseAsync(['mock-model', '--port', 'eighty'], { from: 'user' })
    expect(stderr.join('')).toMatch(/--port must be a whole number/)
  })
})
