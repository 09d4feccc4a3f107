import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openAgent } from '../../runtime/open.js'
import { startMockModel } from '../../llm/mock/server.js'
import { livePrinter } from '../print/live-printer.js'
import { agentToolLookup } from '../../frontend/render/index.js'
import { demoScript } from './demo-script.js'
import { writeSampleProject } from './sample-project.js'

/**
 * `rein demo`: a short scripted session (read, edit, run, answer) against the built-in mock model, in a temporary
 * copy of a small sample project. Needs no key and no network. Returns the exit code.
 */
export async function runDemo(options: { keep?: boolean; write?: (text: string) => void } = {}): Promise<number> {
  const write = options.write ?? ((text: string) => process.stdout.write(text))
  const root = mkdtempSync(join(tmpdir(), 'rein-demo-'))
  const project = join(root, 'greeter')
  const home = join(root, 'home')
  writeSampleProject(project)
  const mock = await startMockModel({ script: demoScript(project) })
  write(`Rein demo: a scripted session against the built-in mock model (no key, no network).\nProject: ${project}\n\n`)
  const agent = await openAgent({
    cwd: project,
    home,
    env: { ...process.env, DEEPSEEK_BASE_URL: mock.url, DEEPSEEK_API_KEY: 'demo-key-for-the-mock-model' },
    permissionMode: 'accept-edits',
    allow: ['Bash(node greet.js:*)'],
  })
  const unsubscribe = agent.subscribe(livePrinter(write, { color: process.stdout.isTTY === true, tools: agentToolLookup(agent), cwd: project }))
  try {
    agent.followUp("Make the greeting follow this project's rules.")
    const outcome = await agent.whenIdle()
    write(`\ngreet.js now reads:\n${readFileSync(join(project, 'greet.js'), 'utf8')}`)
    write(`\nThe session log held ${agent.session.length} events.`)
    write(
      options.keep
        ? ` It is kept: REIN_HOME=${home} rein sessions show ${agent.session.id.slice(0, 8)}\n`
        : ' Run `rein demo --keep` to keep the project and log and inspect them with `rein sessions show`.\n',
    )
    return outcome?.reason === 'completed' ? 0 : 1
  } finally {
    unsubscribe()
    await agent.close()
    await mock.close()
    if (!options.keep) rmSync(root, { recursive: true, force: true })
  }
}
