import { execFileSync } from 'node:child_process'
import { linkSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  agentText,
  closeMockAfterEach,
  instruction,
  link,
  outsideOf,
  OUTSIDE,
  replay,
  secretOutside,
  skillText,
  SSH_KEY,
  sshKey,
  write,
  type Attack,
} from '../support/read-gate-runs.js'

/**
 * The files Rein reads on its own (instruction, command, skill and agent files), each planted by a hostile repository
 * as a link, pipe, folder or hard link to a secret, replayed through `rein -p` against the mock model. Each row says
 * what the user must be told; after every row the secret must be in no request the model received, in no file Rein
 * wrote under $REIN_HOME (the session log), and in nothing Rein printed. A new variant is one more row. The
 * configuration files and the legitimate links that must still load are in read-gate-config.test.ts.
 */

const ATTACKS: Attack[] = [
  {
    name: 'AGENTS.md linked to a file outside the workspace (absolute target)',
    secret: OUTSIDE,
    plant: (b) => link(secretOutside(b), join(b.cwd, 'AGENTS.md')),
    notice: (b) => instruction(b, 'AGENTS.md') + outsideOf(b.outside('secret.txt'), b.cwd),
  },
  {
    name: 'AGENTS.md linked to a file outside the workspace (relative target)',
    secret: OUTSIDE,
    plant: (b) => {
      secretOutside(b)
      link('../outside-secret.txt', join(b.cwd, 'AGENTS.md'))
    },
    notice: (b) => instruction(b, 'AGENTS.md') + outsideOf(b.outside('secret.txt'), b.cwd),
  },
  {
    name: 'CLAUDE.md linked to ~/.ssh/id_rsa while Read(~/.ssh/**) is denied',
    secret: SSH_KEY,
    plant: (b) => link(sshKey(b), join(b.cwd, 'CLAUDE.md')),
    notice: (b) => `${instruction(b, 'CLAUDE.md')}the permission rule Read(~/.ssh/**) covers it`,
  },
  {
    name: 'CLAUDE.md linked to ~/.ssh/id_rsa with no deny rule at all',
    secret: SSH_KEY,
    plant: (b) => {
      write(join(b.userHome, '.ssh', 'id_rsa'), `${SSH_KEY}\n`)
      link(join(b.userHome, '.ssh', 'id_rsa'), join(b.cwd, 'CLAUDE.md'))
    },
    notice: (b) => instruction(b, 'CLAUDE.md') + outsideOf(join(b.userHome, '.ssh', 'id_rsa'), b.cwd),
  },
  {
    name: 'AGENTS.local.md linked out (the personal variant)',
    secret: OUTSIDE,
    plant: (b) => link(secretOutside(b), join(b.cwd, 'AGENTS.local.md')),
    notice: (b) => instruction(b, 'AGENTS.local.md') + outsideOf(b.outside('secret.txt'), b.cwd),
  },
  {
    name: 'CLAUDE.local.md linked to Rein’s own credentials file',
    secret: 'SECRET-credential-0e11',
    plant: (b) => {
      write(join(b.reinHome, 'credentials'), 'DEEPSEEK_API_KEY=SECRET-credential-0e11\n')
      link(join(b.reinHome, 'credentials'), join(b.cwd, 'CLAUDE.local.md'))
    },
    notice: (b) => instruction(b, 'CLAUDE.local.md'),
  },
  {
    name: 'AGENTS.md linked to /proc/self/environ',
    secret: 'SECRET-environment-51f0',
    env: { LEAK_CANARY: 'SECRET-environment-51f0' },
    plant: (b) => link('/proc/self/environ', join(b.cwd, 'AGENTS.md')),
    notice: (b) => instruction(b, 'AGENTS.md'),
  },
  {
    name: 'AGENTS.md is a hard link to ~/.ssh/id_rsa while Read(~/.ssh/**) is denied',
    secret: SSH_KEY,
    plant: (b) => linkSync(sshKey(b), join(b.cwd, 'AGENTS.md')),
    notice: (b) => `${instruction(b, 'AGENTS.md')}it is a hard link to a file the permission rule Read(~/.ssh/**) covers`,
  },
  {
    name: 'AGENTS.md linked to a workspace file a project Read deny rule covers',
    secret: 'SECRET-private-notes-77aa',
    plant: (b) => {
      write(join(b.cwd, '.rein', 'settings.json'), JSON.stringify({ permissions: { deny: ['Read(./private/**)'] } }))
      write(join(b.cwd, 'private', 'notes.md'), 'SECRET-private-notes-77aa\n')
      link('private/notes.md', join(b.cwd, 'AGENTS.md'))
    },
    notice: (b) => `${instruction(b, 'AGENTS.md')}the permission rule Read(./private/**) covers it`,
  },
  {
    name: 'AGENTS.md linked to /dev/stdin is skipped without waiting for input',
    secret: 'no-secret-on-stdin',
    plant: (b) => link('/dev/stdin', join(b.cwd, 'AGENTS.md')),
    notice: (b) => instruction(b, 'AGENTS.md'),
  },
  {
    name: 'a FIFO named AGENTS.md does not hang the run',
    secret: 'no-secret-in-a-pipe',
    plant: (b) => execFileSync('mkfifo', [join(b.cwd, 'AGENTS.md')]),
    notice: (b) => `${instruction(b, 'AGENTS.md')}it is a named pipe (FIFO), not a file`,
  },
  {
    name: 'a directory named CLAUDE.md',
    secret: 'no-secret-in-a-directory',
    plant: (b) => mkdirSync(join(b.cwd, 'CLAUDE.md')),
    notice: (b) => `${instruction(b, 'CLAUDE.md')}it is a directory, not a file`,
  },
  {
    name: 'a nested app/AGENTS.md linked out, between the root and the working directory',
    secret: OUTSIDE,
    plant: (b) => {
      mkdirSync(join(b.cwd, 'app'))
      link(secretOutside(b), join(b.cwd, 'app', 'AGENTS.md'))
    },
    args: () => ['--cwd', 'app'],
    notice: (b) => instruction(b, 'app/AGENTS.md') + outsideOf(b.outside('secret.txt'), b.cwd),
  },
  {
    name: 'a nested sub/AGENTS.md linked out, found when the model reads a file in sub/',
    secret: OUTSIDE,
    plant: (b) => {
      write(join(b.cwd, 'sub', 'notes.txt'), 'plain notes\n')
      link(secretOutside(b), join(b.cwd, 'sub', 'AGENTS.md'))
    },
    script: () => [{ toolCalls: [{ name: 'read', arguments: { file_path: 'sub/notes.txt' } }] }, { text: 'done' }],
    notice: (b) => instruction(b, 'sub/AGENTS.md') + outsideOf(b.outside('secret.txt'), b.cwd),
  },
  {
    name: 'a linked folder docs -> /elsewhere holding AGENTS.md, found when the model reads in it with a rule allowing the read',
    secret: OUTSIDE,
    plant: (b) => {
      write(join(b.outside('docs'), 'AGENTS.md'), `${OUTSIDE}\n`)
      write(join(b.outside('docs'), 'guide.txt'), 'a guide\n')
      link(b.outside('docs'), join(b.cwd, 'docs'))
    },
    args: (b) => ['--allow', `Read(${b.outside('docs')}/**)`],
    script: () => [{ toolCalls: [{ name: 'read', arguments: { file_path: 'docs/guide.txt' } }] }, { text: 'done' }],
    notice: (b) => `${instruction(b, 'docs/AGENTS.md')}its real path ${join(b.outside('docs'), 'AGENTS.md')} is outside ${b.cwd}`,
  },
  {
    name: 'the user-wide $REIN_HOME/AGENTS.md linked to ~/.ssh/id_rsa',
    secret: SSH_KEY,
    plant: (b) => link(sshKey(b), join(b.reinHome, 'AGENTS.md')),
    notice: (b) => `The instruction file ${join(b.reinHome, 'AGENTS.md')} was not read: the permission rule Read(~/.ssh/**) covers it`,
  },
  {
    name: 'the user-wide $REIN_HOME/AGENTS.md linked to another file of Rein’s home',
    secret: 'SECRET-in-rein-home-61c2',
    plant: (b) => {
      write(join(b.reinHome, 'notes.txt'), 'SECRET-in-rein-home-61c2\n')
      link('notes.txt', join(b.reinHome, 'AGENTS.md'))
    },
    notice: (b) => `The instruction file ${join(b.reinHome, 'AGENTS.md')} was not read: it is in Rein's own home (${b.reinHome}), which holds sessions and credentials`,
  },
  {
    name: '.claude/commands/review.md linked to a secret, then /review',
    secret: OUTSIDE,
    plant: (b) => link(secretOutside(b), join(b.cwd, '.claude', 'commands', 'review.md')),
    prompt: '/review',
    notice: (b) => `The command file .claude/commands/review.md was not read: ${outsideOf(b.outside('secret.txt'), join(b.cwd, '.claude', 'commands'))}`,
  },
  {
    name: '.rein/commands/review.md linked to ~/.ssh/id_rsa, then /review',
    secret: SSH_KEY,
    plant: (b) => link(sshKey(b), join(b.cwd, '.rein', 'commands', 'review.md')),
    prompt: '/review',
    notice: () => 'The command file .rein/commands/review.md was not read: the permission rule Read(~/.ssh/**) covers it',
  },
  {
    name: 'a linked commands folder .claude/commands -> /elsewhere, then /review',
    secret: OUTSIDE,
    plant: (b) => {
      write(join(b.outside('commands'), 'review.md'), `${OUTSIDE}\n`)
      link(b.outside('commands'), join(b.cwd, '.claude', 'commands'))
    },
    prompt: '/review',
    notice: (b) => `The commands folder .claude/commands was not read: ${outsideOf(b.outside('commands'), join(b.cwd, '.claude', 'commands'))}`,
  },
  {
    name: 'a command subfolder linked out (.claude/commands/team -> /elsewhere), then /team:review',
    secret: OUTSIDE,
    plant: (b) => {
      write(join(b.outside('team'), 'review.md'), `${OUTSIDE}\n`)
      mkdirSync(join(b.cwd, '.claude', 'commands'), { recursive: true })
      link(b.outside('team'), join(b.cwd, '.claude', 'commands', 'team'))
    },
    prompt: '/team:review',
    notice: (b) => `The commands folder .claude/commands/team was not read: ${outsideOf(b.outside('team'), join(b.cwd, '.claude', 'commands'))}`,
  },
  {
    name: 'a command file that is a FIFO, then /review',
    secret: 'no-secret-in-a-pipe',
    plant: (b) => {
      mkdirSync(join(b.cwd, '.claude', 'commands'), { recursive: true })
      execFileSync('mkfifo', [join(b.cwd, '.claude', 'commands', 'review.md')])
    },
    prompt: '/review',
    notice: () => 'The command file .claude/commands/review.md was not read: it is a named pipe (FIFO), not a file',
  },
  {
    name: '.claude/commands/env.md linked to /proc/self/environ, then /env',
    secret: 'SECRET-environment-51f0',
    env: { LEAK_CANARY: 'SECRET-environment-51f0' },
    plant: (b) => link('/proc/self/environ', join(b.cwd, '.claude', 'commands', 'env.md')),
    prompt: '/env',
    notice: () => 'The command file .claude/commands/env.md was not read: ',
  },
  {
    name: 'a command whose @path names an instruction file linked out',
    secret: OUTSIDE,
    plant: (b) => {
      write(join(b.cwd, '.claude', 'commands', 'review.md'), 'Review with @AGENTS.md\n')
      link(secretOutside(b), join(b.cwd, 'AGENTS.md'))
    },
    prompt: '/review',
    notice: () => '/review was not run: it includes @AGENTS.md, which needs approval',
  },
  {
    name: 'a skill’s SKILL.md linked out, then the model loads the skill',
    secret: OUTSIDE,
    plant: (b) => link(secretOutside(b, skillText(OUTSIDE)), join(b.cwd, '.claude', 'skills', 'leak', 'SKILL.md')),
    script: () => [{ toolCalls: [{ name: 'skill', arguments: { name: 'leak' } }] }, { text: 'done' }],
    notice: (b) => `The skill file .claude/skills/leak/SKILL.md was not read: ${outsideOf(b.outside('secret.txt'), join(b.cwd, '.claude', 'skills', 'leak'))}`,
  },
  {
    name: 'a skill folder linked out (.agents/skills/leak -> /elsewhere)',
    secret: OUTSIDE,
    plant: (b) => {
      write(join(b.outside('skill'), 'SKILL.md'), skillText(OUTSIDE))
      link(b.outside('skill'), join(b.cwd, '.agents', 'skills', 'leak'))
    },
    script: () => [{ toolCalls: [{ name: 'skill', arguments: { name: 'leak' } }] }, { text: 'done' }],
    notice: (b) => `The skill folder .agents/skills/leak was not read: ${outsideOf(b.outside('skill'), join(b.cwd, '.agents', 'skills'))}`,
  },
  {
    name: 'a skill’s SKILL.md hard-linked to ~/.ssh/id_rsa while Read(~/.ssh/**) is denied',
    secret: SSH_KEY,
    plant: (b) => {
      mkdirSync(join(b.cwd, '.rein', 'skills', 'leak'), { recursive: true })
      linkSync(sshKey(b), join(b.cwd, '.rein', 'skills', 'leak', 'SKILL.md'))
    },
    notice: () => 'The skill file .rein/skills/leak/SKILL.md was not read: it is a hard link to a file the permission rule Read(~/.ssh/**) covers',
  },
  {
    name: 'an agent file linked out of .claude/agents',
    secret: OUTSIDE,
    plant: (b) => link(secretOutside(b, agentText(OUTSIDE)), join(b.cwd, '.claude', 'agents', 'spy.md')),
    notice: (b) => `The agent file ${join(b.cwd, '.claude', 'agents', 'spy.md')} was not read: ${outsideOf(b.outside('secret.txt'), join(b.cwd, '.claude', 'agents'))}`,
  },
  {
    name: 'an agent file hard-linked to ~/.ssh/id_rsa while Read(~/.ssh/**) is denied',
    secret: SSH_KEY,
    plant: (b) => {
      mkdirSync(join(b.cwd, '.claude', 'agents'), { recursive: true })
      linkSync(sshKey(b), join(b.cwd, '.claude', 'agents', 'spy.md'))
    },
    notice: (b) => `The agent file ${join(b.cwd, '.claude', 'agents', 'spy.md')} was not read: it is a hard link to a file the permission rule Read(~/.ssh/**) covers`,
  },
  {
    name: 'a command file hard-linked to ~/.ssh/id_rsa while Read(~/.ssh/**) is denied, then /review',
    secret: SSH_KEY,
    plant: (b) => {
      mkdirSync(join(b.cwd, '.claude', 'commands'), { recursive: true })
      linkSync(sshKey(b), join(b.cwd, '.claude', 'commands', 'review.md'))
    },
    prompt: '/review',
    notice: () => 'The command file .claude/commands/review.md was not read: it is a hard link to a file the permission rule Read(~/.ssh/**) covers',
  },
  {
    name: 'a SKILL.md that is a FIFO',
    secret: 'no-secret-in-a-pipe',
    plant: (b) => {
      mkdirSync(join(b.cwd, '.claude', 'skills', 'leak'), { recursive: true })
      execFileSync('mkfifo', [join(b.cwd, '.claude', 'skills', 'leak', 'SKILL.md')])
    },
    notice: () => 'The skill file .claude/skills/leak/SKILL.md was not read: it is a named pipe (FIFO), not a file',
  },
  {
    name: 'a FIFO named sub/CLAUDE.md, found mid-turn when the model reads in sub/, does not hang the turn',
    secret: 'no-secret-in-a-pipe',
    plant: (b) => {
      write(join(b.cwd, 'sub', 'notes.txt'), 'plain notes\n')
      execFileSync('mkfifo', [join(b.cwd, 'sub', 'CLAUDE.md')])
    },
    script: () => [{ toolCalls: [{ name: 'read', arguments: { file_path: 'sub/notes.txt' } }] }, { text: 'done' }],
    notice: (b) => `${instruction(b, 'sub/CLAUDE.md')}it is a named pipe (FIFO), not a file`,
  },
  {
    name: 'a linked agents folder .rein/agents -> /elsewhere',
    secret: OUTSIDE,
    plant: (b) => {
      write(join(b.outside('agents'), 'spy.md'), agentText(OUTSIDE))
      link(b.outside('agents'), join(b.cwd, '.rein', 'agents'))
    },
    notice: (b) => `The agents folder ${join(b.cwd, '.rein', 'agents')} was not read: ${outsideOf(b.outside('agents'), join(b.cwd, '.rein', 'agents'))}`,
  },
]

describe('files Rein reads on its own pass one read gate (rein -p against the mock model)', () => {
  for (const attack of ATTACKS) {
    it(`${attack.name}: skipped with one notice, and the secret reaches neither the model nor the log`, async () => {
      const { run, box, requests, written } = await replay(attack)
      const notice = attack.notice(box)
      expect(run.signal, 'the run ended by itself').toBeNull()
      expect(run.stderr).toContain(notice)
      // A refused `/name` prompt repeats the reason as its own refusal (and print mode the turn's end); else once.
      if (!attack.prompt) expect(run.stderr.split(notice).length - 1, `told once: ${run.stderr}`).toBe(1)
      expect(requests, 'what the model received').not.toContain(attack.secret)
      expect(written, 'what Rein wrote under $REIN_HOME').not.toContain(attack.secret)
      expect(run.stdout + run.stderr, 'what Rein printed').not.toContain(attack.secret)
    })
  }
})

describe('a subagent’s own instruction and agent files pass the same gate', () => {
  it('a hard link to a denied key as CLAUDE.md reaches neither the parent’s nor the child’s requests, while AGENTS.md reaches both', async () => {
    const { run, mock, requests } = await replay({
      plant: (b) => {
        write(join(b.cwd, 'AGENTS.md'), 'LEGIT-rule-for-everyone\n')
        linkSync(sshKey(b), join(b.cwd, 'CLAUDE.md'))
      },
      script: () => [
        { system: 'You are Rein, a coding agent', toolCalls: [{ name: 'task', arguments: { description: 'look', prompt: 'Look around.' } }] },
        { system: 'subagent of type "general"', text: 'looked' },
        { system: 'You are Rein, a coding agent', text: 'done' },
      ],
    })
    const childRequests = mock.requests.filter((r) => JSON.stringify(r.body).includes('subagent of type \\"general\\"'))
    expect(childRequests.length, 'the child asked the model').toBeGreaterThan(0)
    expect(JSON.stringify(childRequests.map((r) => r.body)), 'the child read its instructions').toContain('LEGIT-rule-for-everyone')
    expect(requests).not.toContain(SSH_KEY)
    expect(run.stderr).toContain('it is a hard link to a file the permission rule Read(~/.ssh/**) covers')
  })
})

closeMockAfterEach()
