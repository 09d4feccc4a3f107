import { cleanup, render } from 'ink-testing-library'
import { afterEach, describe, expect, it } from 'vitest'
import type { CommandInput, CommandResult } from '../../src/agent/extensions.js'
import { App } from '../../src/cli/tui/App.js'
import { stripAnsi } from '../../src/cli/tui/ansi.js'
import type { TuiExit } from '../../src/cli/tui/services.js'
import { FakeAgent, fakeServices, settle, waitForFrame } from './support/fake-agent.js'

afterEach(() => cleanup())

/** A fake agent whose `rewind` commands answer from a script and are recorded, as the checkpoint extension's would be. */
class RewindingAgent extends FakeAgent {
  readonly commands: { name: string; args: CommandInput['args'] }[] = []
  answer: (name: string, args: Record<string, unknown>) => CommandResult = () => ({ outcome: 'nothing', message: 'Nothing to do.' })

  async runCommand(name: string, input: CommandInput = {}): Promise<CommandResult> {
    this.commands.push({ name, args: input.args })
    return this.answer(name, (input.args ?? {}) as Record<string, unknown>)
  }
}

/** Two turns: the first changed a.txt with bash, the second changed nothing. */
function twoTurns(agent: FakeAgent): void {
  const prompt = (turn: number, text: string) => {
    agent.commit('turn/start', { turn })
    agent.commit('user/message', { id: `u${turn}`, content: [{ type: 'text', text }], source: { kind: 'user' } }, { surface: true })
  }
  prompt(1, 'make the build pass\nwith details')
  agent.commit('checkpoint/created', { turn: 1, step: 1, commit: 'a'.repeat(40), files: 2 })
  agent.commit('checkpoint/changes', { turn: 1, step: 1, paths: [{ path: 'a.txt', kind: 'modified' }, { path: 'b.txt', kind: 'added' }] })
  agent.commit('turn/end', { turn: 1, reason: 'completed' })
  prompt(2, 'explain it')
  agent.commit('turn/end', { turn: 2, reason: 'completed' })
}

const PLAN: CommandResult = {
  outcome: 'planned',
  message: 'Would restore the files as they were at the start of turn 1: 1 put back, 1 removed.',
  data: { turn: 1, code: { target: 'a'.repeat(40), changes: [{ path: 'a.txt', kind: 'modified' }, { path: 'b.txt', kind: 'added' }], conflicts: ['a.txt'], kept: [] } },
}

async function type(ui: ReturnType<typeof render>, text: string): Promise<void> {
  ui.stdin.write(text)
  await settle(20)
}

function setup(answer?: RewindingAgent['answer']) {
  const agent = new RewindingAgent()
  if (answer) agent.answer = answer
  twoTurns(agent)
  const exits: TuiExit[] = []
  const ui = render(<App agent={agent.api} services={fakeServices()} onExit={(exit) => exits.push(exit)} />)
  return { agent, ui, exits, screen: () => stripAnsi(ui.lastFrame() ?? '') }
}

describe('/rewind in the terminal UI', () => {
  it('lists the turns newest first with their prompt’s first line and how many files each changed', async () => {
    const { ui } = setup()
    await settle()
    await type(ui, '/rewind')
    await type(ui, '\r')
    const shown = await waitForFrame(ui, 'Rewind to the start of a turn')
    expect(shown).toContain('turn 2: explain it')
    expect(shown).toContain('no files changed')
    expect(shown).toContain('turn 1: make the build pass')
    expect(shown).toContain('2 files changed')
    expect(shown.indexOf('turn 2: explain it')).toBeLessThan(shown.indexOf('turn 1: make the build pass'))
  })

  it('shows the dry run of the picked turn, then restores code only when that is chosen', async () => {
    const { agent, ui } = setup((_name, args) =>
      args.dryRun ? PLAN : { outcome: 'rewound', message: 'Restored the files as they were at the start of turn 1: 1 put back, 1 removed.', data: { turn: 1 } },
    )
    await settle()
    await type(ui, '/rewind')
    await type(ui, '\r')
    await waitForFrame(ui, 'Rewind to the start of a turn')
    await type(ui, '\x1b[B')
    await type(ui, '\r')
    let shown = await waitForFrame(ui, 'Restore code and conversation')
    expect(agent.commands[0]).toEqual({ name: 'rewind', args: { turn: 1, dryRun: true } })
    expect(shown).toContain('Would restore the files as they were at the start of turn 1')
    expect(shown).toContain('put back     a.txt')
    expect(shown).toContain('removed      b.txt')
    expect(shown).toContain('Changed since Rein last wrote them (you are asked before they are overwritten): a.txt')
    expect(shown).toContain('Restore code and conversation')
    await type(ui, '\x1b[B')
    await type(ui, '\r')
    shown = await waitForFrame(ui, 'Restored the files')
    expect(agent.commands[1]).toEqual({ name: 'rewind', args: { turn: 1, code: true, conversation: false } })
    expect(shown).toContain('Restored the files as they were at the start of turn 1')
  })

  it('switches to the fork a conversation rewind made', async () => {
    const { agent, ui, exits } = setup((_name, args) =>
      args.dryRun ? PLAN : { outcome: 'rewound', message: 'The conversation continues in session f0.', data: { turn: 1, fork: { id: 'f0rk-id', seq: 0 } } },
    )
    await settle()
    await type(ui, '/rewind 1 conversation')
    await type(ui, '\r')
    await waitForFrame(ui, 'Restore conversation only')
    expect(agent.commands[0]).toEqual({ name: 'rewind', args: { turn: 1, dryRun: true, code: false, conversation: true } })
    await type(ui, '\r')
    for (let i = 0; i < 100 && !exits.length; i++) await settle(10)
    expect(agent.commands[1]).toEqual({ name: 'rewind', args: { turn: 1, code: false, conversation: true } })
    expect(exits).toEqual([{ kind: 'switch', resume: 'f0rk-id' }])
  })

  it('cancel at the question changes nothing', async () => {
    const { agent, ui, screen } = setup(() => PLAN)
    await settle()
    await type(ui, '/rewind 1')
    await type(ui, '\r')
    await waitForFrame(ui, 'what to restore')
    await type(ui, 'cancel\r')
    await settle()
    expect(agent.commands).toHaveLength(1)
    expect(screen()).toContain('Rewind cancelled; nothing changed.')
  })

  it('says so and offers nothing to choose when the session has no rewind command', async () => {
    const { agent, ui, screen } = setup(() => ({ outcome: 'nothing', message: 'The rewind command is not available in this session.' }))
    await settle()
    await type(ui, '/rewind 1')
    await type(ui, '\r')
    await waitForFrame(ui, 'The rewind command is not available in this session.')
    expect(screen()).not.toContain('Restore code')
    expect(agent.commands).toHaveLength(1)
  })

  it('runs rewind-undo for /rewind undo and shows its sentence', async () => {
    const { agent, ui, screen } = setup(() => ({ outcome: 'rewound', message: 'Undid the rewind to turn 1: 1 put back.' }))
    await settle()
    await type(ui, '/rewind undo')
    await type(ui, '\r')
    await settle()
    expect(agent.commands).toEqual([{ name: 'rewind-undo', args: {} }])
    expect(screen()).toContain('Undid the rewind to turn 1: 1 put back.')
  })

  it('refuses a word that is not a turn, a turn out of range, and a rewind while a turn runs, each in one sentence', async () => {
    const { agent, ui, screen } = setup((_name, args) => {
      throw new Error(`Session s has no turn ${String(args.turn)}; its turns are 1 to 2.`)
    })
    await settle()
    await type(ui, '/rewind yesterday')
    await type(ui, '\r')
    await type(ui, '/rewind 9')
    await type(ui, '\r')
    agent.busy = true
    await type(ui, '/rewind 1')
    await type(ui, '\r')
    await settle()
    const shown = screen()
    expect(shown).toContain('"yesterday" is not a turn number; /rewind alone lists the turns')
    expect(shown).toContain('Session s has no turn 9; its turns are 1 to 2.')
    expect(shown).toContain('A turn is running; /rewind works once it has ended (cancel it first).')
    expect(agent.commands.map((c) => c.args)).toEqual([{ turn: 9, dryRun: true }])
  })
})
