import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { sendAsUser } from './prompt.js'
import type { BuiltinCommand } from './types.js'

/** What the repository already has, as `/init` tells the model. Only whether the files exist is looked at here. */
export interface InitFacts {
  agents: boolean
  claude: boolean
}

/**
 * Rein's prompt for `/init`: look at the repository, then write AGENTS.md (or improve the one there, keeping what it
 * says); a CLAUDE.md without an AGENTS.md is named so its content is carried over. `extra` is what the user typed
 * after the command.
 */
export function initPrompt(facts: InitFacts, extra: string): string {
  const task = facts.agents
    ? 'This repository already has an AGENTS.md: the instructions coding agents read before working here. Improve it.'
    : 'Write an AGENTS.md at the root of this repository: the instructions coding agents read before working here.'
  const existing = facts.agents
    ? [
        '',
        'Read the existing AGENTS.md first. Its content is the maintainers\': keep every part that is still true, in their words and order;',
        'correct what the repository contradicts, add what is missing, and remove nothing you have not checked is wrong.',
      ]
    : facts.claude
      ? ['', 'There is a CLAUDE.md (instructions written for Claude Code) and no AGENTS.md. Read CLAUDE.md, carry over what holds for any agent, and leave CLAUDE.md itself unchanged.']
      : []
  return [
    task,
    ...existing,
    '',
    'First look at the repository itself: the README and other docs, the build and package files (package.json, Makefile,',
    'pyproject.toml, Cargo.toml, go.mod and the like), the CI configuration, the layout of the source and test folders, and a',
    'few source and test files to learn the conventions. Run a build or test command only if it is quick and harmless.',
    '',
    'The file should say, briefly and concretely:',
    '- how to install the dependencies, build the project and run it;',
    '- how to run the tests (all of them, one file, one test) and the linters, formatters and type checks the project uses;',
    '- the layout: which folder holds what, and where the entry points are;',
    '- the conventions a newcomer would get wrong: code style, naming, error handling, how tests are written, commit messages;',
    '- anything surprising: generated files not to edit by hand, required environment variables, slow or flaky steps.',
    '',
    'Write only what is true of this repository and what you checked; leave out generic advice. Use short sections and',
    'exact commands, and keep it well under 200 lines. When you are done, say in two or three sentences what you wrote.',
    ...(extra ? ['', `The user adds: ${extra}`] : []),
  ].join('\n')
}

/** `/init [notes]`: asks the model to write or improve AGENTS.md, as the user's own message. */
export const initCommand: BuiltinCommand = {
  name: 'init',
  argument: { hint: '[notes]' },
  help: 'Ask the model to write (or improve) an AGENTS.md for this repository',
  surfaces: ['tui', 'acp', 'rpc', 'web', 'print'],
  // A prompt like any custom command's: an `init.md` of the user's or the workspace's takes its place.
  yields: true,
  run(ctx, arg) {
    const cwd = ctx.agent.cwd
    const facts = { agents: existsSync(join(cwd, 'AGENTS.md')), claude: existsSync(join(cwd, 'CLAUDE.md')) }
    sendAsUser(ctx, 'init', arg, initPrompt(facts, arg))
    const what = facts.agents ? 'improve AGENTS.md' : facts.claude ? 'write AGENTS.md from the repository and CLAUDE.md' : 'write AGENTS.md'
    ctx.reply(`Asked the model to ${what}; it can edit files only as the permission mode allows.`)
  },
}
