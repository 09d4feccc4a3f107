import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { credentialsPath, resolveApiKey } from '../../src/llm/credentials.js'

function home(contents?: string, mode = 0o600): string {
  const dir = mkdtempSync(join(tmpdir(), 'rein-cred-'))
  if (contents !== undefined) {
    writeFileSync(credentialsPath(dir), contents)
    chmodSync(credentialsPath(dir), mode)
  }
  return dir
}

describe('the API key', () => {
  it('comes from DEEPSEEK_API_KEY first, trimmed', () => {
    expect(resolveApiKey({ DEEPSEEK_API_KEY: ' sk-env \n' }, home('sk-file\n'))).toBe('sk-env')
  })

  it('falls back to the credentials file: a bare key, or a DEEPSEEK_API_KEY= line, comments skipped', () => {
    expect(resolveApiKey({}, home('sk-bare\n'))).toBe('sk-bare')
    expect(resolveApiKey({}, home('# my key\nexport DEEPSEEK_API_KEY="sk-quoted"\n'))).toBe('sk-quoted')
  })

  it('ignores a credentials file others can read, as ssh does with keys', () => {
    expect(resolveApiKey({}, home('sk-open\n', 0o644))).toBeUndefined()
  })

  it('is absent when neither is set', () => {
    expect(resolveApiKey({}, home())).toBeUndefined()
    expect(resolveApiKey({ DEEPSEEK_API_KEY: '' }, home('\n\n'))).toBeUndefined()
  })
})
