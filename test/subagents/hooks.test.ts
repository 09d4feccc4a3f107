import { afterEach, describe, expect, it } from 'vitest'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startMockModel, type MockModel } from '../support/mock-model.js'
import { cliEnv, runCli, sandbox } from '../support/cli.js'
import { childOf, ofType, PARENT, parentAndChildren } from './support.js'

let mock: MockModel | undefined
afterEach(async () => {
  await mock?.close()
  mock = undefined
})

describe('SubagentStart and SubagentStop hooks', () => {
  it("get Claude Code's payloads; SubagentStart adds context for the child, and a SubagentStop block continues it once", async () => {
    const box = sandbox()
    const out = join(box.root, 'hook-out')
    mkdirSync(out)
    const start = `cat > "${out}/start.json"; echo '{"hookSpecificOutput":{"hookEventName":"SubagentStart","additionalContext":"Only look at src/."}}'`
    // Blocks the first stop (no marker yet), lets the second through.
    const stop = `cat > "${out}/stop-$(ls "${out}" | wc -l).json"; if [ -e "${out}/blocked" ]; then exit 0; fi; touch "${out}/blocked"; echo "Also list the tests." >&2; exit 2`
    mkdirSync(join(box.home, '.claude'), { recursive: true })
    writeFileSync(
      join(box.home, '.claude', 'settings.json'),
      JSON.stringify({
        hooks: {
          SubagentStart: [{ matcher: 'explore', hooks: [{ type: 'command', command: start }] }],
          SubagentStop: [{ matcher: 'explore', hooks: [{ type: 'command', command: stop }] }],
        },
      }),
    )
    mock = await startMockModel({
      script: [
        { system: PARENT, toolCalls: [{ name: 'task', arguments: { description: 'survey', prompt: 'What is in src?', subagent_type: 'explore' } }] },
        { system: childOf('explore'), match: 'What is in src?', text: 'src has main.ts.' },
        { system: childOf('explore'), match: 'Also list the tests.', text: 'src has main.ts; tests: none.' },
        { system: PARENT, text: 'Done.' },
      ],
    })
    const r = await runCli(['-p', 'survey'], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
    expect(r.code).toBe(0)

    const { parent, children } = parentAndChildren(box.home)
    const child = children[0]
    const started = JSON.parse(readFileSync(join(out, 'start.json'), 'utf8'))
    expect(started).toMatchObject({ hook_event_name: 'SubagentStart', session_id: parent.header.id, agent_id: child.header.id, agent_type: 'explore' })
    const stopped = JSON.parse(readFileSync(join(out, 'stop-1.json'), 'utf8'))
    expect(stopped).toMatchObject({
      hook_event_name: 'SubagentStop',
      session_id: parent.header.id,
      agent_id: child.header.id,
      agent_type: 'explore',
      stop_hook_active: false,
      last_assistant_message: 'src has main.ts.',
    })
    expect(stopped.agent_transcript_path).toMatch(new RegExp(`${child.header.id}\\.jsonl$`))
    expect(existsSync(join(out, 'stop-3.json'))).toBe(true)

    const context = ofType(child, 'context/message').map((e) => e.data as { content: { text: string }[] })
    expect(context.some((d) => d.content[0].text === 'Only look at src/.')).toBe(true)
    expect(ofType(child, 'steering/message').map((e) => (e.data as { content: { text: string }[] }).content[0].text)).toEqual(['Also list the tests.'])
    expect(ofType(parent, 'tool/result')[0].data).toMatchObject({ content: [{ text: 'src has main.ts; tests: none.' }] })
    expect(ofType(parent, 'hook/invoked').map((e) => (e.data as { event: string }).event)).toEqual(['SubagentStart', 'SubagentStop', 'SubagentStop'])
  })
})
