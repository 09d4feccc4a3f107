import { describe, expect, it } from 'vitest'
import { splitArguments, substituteArguments } from '../../src/prompt-files/commands/arguments.js'
import { parseCommandLine } from '../../src/prompt-files/commands/extension.js'
import { parseFrontmatter, toolRulesField } from '../../src/prompt-files/frontmatter.js'

describe('command arguments', () => {
  it('split at spaces and newlines, with double and single quotes grouping and a backslash escaping', () => {
    expect(splitArguments(`a "b c" 'd "e"'\nf\\ g "h\\"i"`)).toEqual(['a', 'b c', 'd "e"', 'f g', 'h"i'])
  })

  it('an empty quoted argument is kept as an empty word, and an unclosed quote runs to the end', () => {
    expect(splitArguments(`"" x "open end`)).toEqual(['', 'x', 'open end'])
  })

  it('$ARGUMENTS is the whole text as typed, $1…$9 its words, a missing word empty', () => {
    expect(substituteArguments('all=[$ARGUMENTS] one=[$1] two=[$2] nine=[$9]', ` x "y z" `)).toBe('all=[x "y z"] one=[x] two=[y z] nine=[]')
  })

  it('$10 is not a placeholder: only nine positions exist', () => {
    expect(substituteArguments('$10 $1', 'a')).toBe('$10 a')
  })

  it('a body without placeholders gets the arguments appended, and without arguments stays as it is', () => {
    expect(substituteArguments('Do it.\n', 'now')).toBe('Do it.\n\nARGUMENTS: now')
    expect(substituteArguments('Do it.\n', '')).toBe('Do it.\n')
  })

  it('a prompt is a command line only when it starts with /name; the rest, newlines included, is the argument text', () => {
    expect(parseCommandLine('/review a\nb')).toEqual({ name: 'review', args: 'a\nb' })
    expect(parseCommandLine('/review\nb')).toEqual({ name: 'review', args: 'b' })
    expect(parseCommandLine('/frontend:component X')).toEqual({ name: 'frontend:component', args: 'X' })
    expect(parseCommandLine('see /review')).toBeUndefined()
    expect(parseCommandLine('/ review')).toBeUndefined()
  })
})

describe('frontmatter', () => {
  it('a file without a block is all body', () => {
    expect(parseFrontmatter('Hello\n', 'f')).toEqual({ data: {}, body: 'Hello\n', raw: {} })
  })

  it('values YAML rejects but Claude Code accepts are read as plain text lines', () => {
    const parsed = parseFrontmatter('---\nargument-hint: [file] [focus]\ndescription: Review\n---\nBody', 'f')
    expect(parsed).toMatchObject({ data: { 'argument-hint': '[file] [focus]', description: 'Review' }, body: 'Body' })
  })

  it('a block that is a list, not fields, is one sentence naming the file', () => {
    expect(parseFrontmatter('---\n- a\n- b\n---\nx', 'The command file x.md')).toEqual({
      error: 'The command file x.md has frontmatter that is not a set of fields; write it as name: value lines.',
    })
  })

  it('allowed-tools as a list, a comma line or a space line all give the same rules', () => {
    const rules = (value: unknown) => toolRulesField({ 'allowed-tools': value }, 'allowed-tools', 'f')
    expect(rules(['Bash(git add:*)', 'Read'])).toEqual(['Bash(git add:*)', 'Read'])
    expect(rules('Bash(git add:*), Read')).toEqual(['Bash(git add:*)', 'Read'])
    expect(rules('Bash(git add:*) Read')).toEqual(['Bash(git add:*)', 'Read'])
  })
})
