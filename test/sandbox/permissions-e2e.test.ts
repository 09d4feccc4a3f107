import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPermissionPolicy } from '../../src/permissions/policy.js'
import { resolveSandbox } from '../../src/sandbox/policy.js'
import { Sandbox } from '../../src/sandbox/sandbox.js'
import { startCommand } from '../../src/tools/process-group.js'
import { createToolState } from '../../src/tools/registry.js'
import { bash } from '../permissions/calls.js'
import { requireBwrap } from './bwrap-required.js'
import { openWorld, type SandboxWorld } from './sandbox-fixture.js'

// The permission policy with a sandbox: what it lets through without a prompt, what still asks or is denied, and a
// command that failed inside running once outside only after a yes.

const bwrap = requireBwrap()

describe.runIf(bwrap.available)('the permission policy with a sandbox', () => {
  let world: SandboxWorld
  let sandbox: Sandbox
  beforeAll(async () => {
    world = await openWorld()
    const { policy } = resolveSandbox({ user: { enabled: true, excludedCommands: ['docker'] } })
    sandbox = await Sandbox.open({ policy, workspace: world.workspace, home: world.home, reinHome: world.reinHome })
  })
  afterAll(async () => {
    await sandbox?.close()
    await world?.close()
  })

  const policyIn = (mode: 'default' | 'plan' | 'bypass', deny: string[] = []) =>
    createPermissionPolicy({ cwd: world.workspace, settings: { permissions: { deny } }, getMode: () => mode, home: world.home, reinHome: world.reinHome, sandbox })

  const run = async (state: ReturnType<typeof createToolState>, command: string) => {
    const started = startCommand(command, world.workspace, state)
    let out = ''
    started.child.stdout.on('data', (c: Buffer) => (out += c))
    started.child.stderr.on('data', (c: Buffer) => (out += c))
    await new Promise((resolve) => started.child.on('close', resolve))
    return { out, sandboxed: started.sandboxed !== undefined, note: started.sandboxed?.report(out).note }
  }

  it('allows a confined command in default mode without a prompt', () => {
    expect(policyIn('default').decide(bash('rm -rf build && npm test'))).toEqual({ action: 'allow', reason: 'sandboxed' })
  })

  it('still applies deny rules', () => {
    expect(policyIn('default', ['Bash(curl:*)']).decide(bash('curl http://example.com'))).toMatchObject({ action: 'deny' })
  })

  it('allows nothing more in plan mode', () => {
    expect(policyIn('plan').decide(bash('touch x'))).toMatchObject({ action: 'deny' })
  })

  it('leaves an excluded command to the ordinary rules, which ask', () => {
    expect(policyIn('default').decide(bash('docker ps'))).toMatchObject({ action: 'ask' })
  })

  it('gives the tools of every state it guards the same sandbox', async () => {
    const state = createToolState({ spillDir: join(world.root, 'spill') })
    policyIn('default').guardTools(state)
    const r = await run(state, 'cat /proc/1/cmdline | tr "\\0" " "')
    expect(r.sandboxed).toBe(true)
    expect(r.out).toMatch(/bwrap|bash/)
  })

  it('runs a command that failed inside once outside, only after the user says yes', async () => {
    const policy = policyIn('default')
    const state = createToolState({ spillDir: join(world.root, 'spill2') })
    policy.guardTools(state)
    const target = join(world.sibling, 'made-outside')
    const command = `touch ${target}`
    const inside = await run(state, command)
    expect(inside.note).toMatch(/call it again unchanged: the user will be asked/)
    expect(existsSync(target)).toBe(false)

    const question = policy.decide(bash(command))
    expect(question).toMatchObject({ action: 'ask', reason: expect.stringMatching(/failed inside the sandbox; allowing runs it once outside/) })
    // The policy's listener reads no extension context, so none is made for it here.
    await policy.permissionAnswered!({ call: bash(command), reason: question.reason! }, { outcome: 'deny' }, undefined as never)
    expect(sandbox.confines(command)).toBe(true)

    await policy.permissionAnswered!({ call: bash(command), reason: question.reason! }, { outcome: 'allow-once' }, undefined as never)
    const outside = await run(state, command)
    expect(outside.sandboxed).toBe(false)
    expect(existsSync(target)).toBe(true)
    expect(policy.decide(bash(command))).toEqual({ action: 'allow', reason: 'sandboxed' })
  })
})
