import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { closeMockAfterEach, link, replay, write, type Box } from '../support/read-gate-runs.js'

/**
 * The read gate beyond prompt files, through `rein -p` against the mock model: a project's configuration files pass the
 * gate's own checks (no link out, no pipe or device that would block start-up), and the links a real repository or
 * user keeps inside their folders still load.
 */

describe('a project’s configuration files pass the gate’s own checks', () => {
  const configRows: { name: string; plant: (b: Box) => void; notice: (b: Box) => string }[] = [
    {
      name: 'a FIFO named .mcp.json',
      plant: (b) => execFileSync('mkfifo', [join(b.cwd, '.mcp.json')]),
      notice: (b) => `${join(b.cwd, '.mcp.json')} was not read: it is a named pipe (FIFO), not a file.`,
    },
    {
      name: '.mcp.json linked to /dev/zero',
      plant: (b) => link('/dev/zero', join(b.cwd, '.mcp.json')),
      notice: (b) => `${join(b.cwd, '.mcp.json')} was not read: it leads to /dev/zero, which is not a file on disk.`,
    },
    {
      name: '.mcp.json linked out of the workspace',
      plant: (b) => {
        write(b.outside('mcp.json'), JSON.stringify({ mcpServers: { evil: { command: 'touch', args: [b.outside('ran')] } } }))
        link(b.outside('mcp.json'), join(b.cwd, '.mcp.json'))
      },
      notice: (b) => `${join(b.cwd, '.mcp.json')} was not read: it is a link to ${b.outside('mcp.json')}, outside ${b.cwd}.`,
    },
    {
      name: 'a FIFO named .claude/settings.json (a hook file)',
      plant: (b) => {
        mkdirSync(join(b.cwd, '.claude'))
        execFileSync('mkfifo', [join(b.cwd, '.claude', 'settings.json')])
      },
      notice: () => `Skipped ${join('.claude', 'settings.json')}: it is a named pipe (FIFO), not a file.`,
    },
  ]
  for (const row of configRows) {
    it(`${row.name}: Rein starts, runs and says why it skipped the file`, async () => {
      const { run, box, mock } = await replay({ plant: row.plant, args: () => ['--trust-project'] })
      expect(run.signal, 'the run ended by itself').toBeNull()
      expect(mock.requests.length, 'the run reached the model').toBeGreaterThan(0)
      expect(run.stderr).toContain(row.notice(box))
      expect(existsSync(box.outside('ran')), 'no server from a linked file ran').toBe(false)
    })
  }
})

describe('legitimate links still load', () => {
  it('CLAUDE.md -> AGENTS.md in the same folder, and docs/ links inside the workspace, reach the model once each, with no notice', async () => {
    const { run, requests } = await replay({
      plant: (b) => {
        write(join(b.cwd, 'AGENTS.md'), 'LEGIT-shared-rule\n')
        link('AGENTS.md', join(b.cwd, 'CLAUDE.md'))
        write(join(b.cwd, 'docs', 'local.md'), 'LEGIT-local-rule\n')
        link('docs/local.md', join(b.cwd, 'AGENTS.local.md'))
      },
    })
    expect(requests).toContain('LEGIT-shared-rule')
    expect(requests).toContain('LEGIT-local-rule')
    expect(run.stderr).not.toContain('was not read')
  })

  it('the user-wide $REIN_HOME/AGENTS.md loads, though Rein’s home is closed to tools', async () => {
    const { run, requests } = await replay({ plant: (b) => write(join(b.reinHome, 'AGENTS.md'), 'LEGIT-user-wide-rule\n') })
    expect(requests).toContain('LEGIT-user-wide-rule')
    expect(run.stderr).not.toContain('was not read')
  })

  it('a command linked to another in its folder expands, and a user skill folder linked in from elsewhere is listed', async () => {
    const { run, requests } = await replay({
      plant: (b) => {
        write(join(b.cwd, '.claude', 'commands', 'review.md'), 'LEGIT-review-prompt\n')
        link('review.md', join(b.cwd, '.claude', 'commands', 'r.md'))
        write(join(b.userHome, 'skills-src', 'notes', 'SKILL.md'), '---\nname: notes\ndescription: LEGIT-user-skill\n---\nTake notes.\n')
        link(join(b.userHome, 'skills-src', 'notes'), join(b.userHome, '.claude', 'skills', 'notes'))
      },
      prompt: '/r',
    })
    expect(requests).toContain('LEGIT-review-prompt')
    expect(requests).toContain('LEGIT-user-skill')
    expect(run.stderr).not.toContain('was not read')
  })

  it('an agent file linked to another file in its folder is offered to the model', async () => {
    const { run, requests } = await replay({
      plant: (b) => {
        write(join(b.cwd, '.claude', 'agents', 'src', 'reviewer.txt'), '---\nname: reviewer\ndescription: LEGIT-agent-type\n---\nReview.\n')
        link('src/reviewer.txt', join(b.cwd, '.claude', 'agents', 'reviewer.md'))
      },
    })
    expect(requests).toContain('LEGIT-agent-type')
    expect(run.stderr).not.toContain('was not read')
  })
})

closeMockAfterEach()
