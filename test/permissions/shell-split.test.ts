import { describe, expect, it } from 'vitest'
import { splitCommand } from '../../src/permissions/shell-split.js'

const texts = (command: string) => splitCommand(command).parts.map((p) => p.text)

describe('splitting shell commands', () => {
  it('splits at &&, ||, ;, |, & and newlines', () => {
    expect(texts('git status && npm test || echo "a && b"; ls | wc -l & sleep 1\nmake')).toEqual([
      'git status',
      'npm test',
      'echo a && b',
      'ls',
      'wc -l',
      'sleep 1',
      'make',
    ])
  })

  it('marks substitutions, subshells and here documents as opaque', () => {
    for (const c of ['echo $(rm -rf /)', 'echo `id`', '(cd x; ls)', 'diff <(ls a) <(ls b)', 'cat <<EOF\nx\nEOF', '$CMD -rf /']) {
      expect(splitCommand(c).opaque, c).toBe(true)
    }
  })

  it('treats output redirected to a file as opaque but allows /dev/null and fd duplication', () => {
    expect(splitCommand('git status > /etc/passwd').opaque).toBe(true)
    expect(splitCommand('npm test >> log.txt').opaque).toBe(true)
    const quiet = splitCommand('npm test 2>&1 > /dev/null')
    expect(quiet.opaque).toBe(false)
    expect(quiet.parts.map((p) => p.text)).toEqual(['npm test'])
  })

  it('does not let a comment hide a command on the next line', () => {
    expect(splitCommand('git status # fine\nrm -rf /').opaque).toBe(true)
    expect(splitCommand('git status # just a note').opaque).toBe(false)
  })

  it('joins line continuations', () => {
    expect(texts('npm \\\n  test')).toEqual(['npm test'])
  })
})
