import { z } from 'zod'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Agent, type AgentOptions } from '../../src/agent/agent.js'
import type { Extension } from '../../src/agent/extensions.js'
import type { Compactor } from '../../src/compaction/compactor.js'
import type { EventType } from '../../src/session/events.js'
import { createAdapter } from '../../src/llm/create.js'
import type { ToolSchema } from '../../src/llm/messages.js'
import { Session } from '../../src/session/session.js'
import { MemoryStore } from '../../src/store/memory-store.js'
import type { AnyTool, ToolState } from '../../src/tools/tool.js'
import { startMockModel, type MockModel, type MockResponse } from './mock-model.js'

/** Minimal tools for loop tests, independent of the built-in tool set. */
export const echoTool: AnyTool = {
  name: 'echo',
  description: 'Echo the text back.',
  schema: z.object({ text: z.string() }),
  readOnly: true,
  category: 'read',
  kind: 'read',
  run: async (args: { text: string }) => ({ content: [{ type: 'text', text: `echo: ${args.text}` }] }),
}

/** Waits `ms` (or until cancelled) and reports which happened. Read-only so concurrency can be observed. */
export function sleepTool(log: string[] = []): AnyTool {
  return {
    name: 'sleep',
    description: 'Wait some milliseconds.',
    schema: z.object({ ms: z.number(), label: z.string().optional() }),
    readOnly: true,
    category: 'read',
    kind: 'other',
    run: (args: { ms: number; label?: string }, ctx) =>
      new Promise((resolve) => {
        log.push(`start ${args.label ?? ''}`)
        const timer = setTimeout(() => {
          log.push(`end ${args.label ?? ''}`)
          resolve({ content: [{ type: 'text', text: `slept ${args.ms} ${args.label ?? ''}`.trim() }] })
        }, args.ms)
        ctx.signal.addEventListener('abort', () => {
          clearTimeout(timer)
          log.push(`killed ${args.label ?? ''}`)
          resolve({ content: [{ type: 'text', text: 'killed by cancel' }], isError: true })
        })
      }),
  }
}

export const schemasOf = (tools: readonly AnyTool[]): ToolSchema[] =>
  [...tools]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((t) => ({ name: t.name, description: t.description, parameters: z.toJSONSchema(t.schema) as Record<string, unknown> }))

export function toolState(): ToolState {
  return { files: new Map(), spillDir: mkdtempSync(join(tmpdir(), 'rein-spill-')), extra: new Map(), secretEnv: new Set() }
}

export interface Harness {
  agent: Agent
  mock: MockModel
  session: Session
  store: MemoryStore
  /** The chat-completions bodies the mock received, in order. */
  bodies(): { messages: { role: string; content: unknown; reasoning_content?: string; tool_calls?: unknown[]; tool_call_id?: string }[] }[]
  close(): Promise<void>
}

export async function harness(options: {
  script: MockResponse[]
  tools?: AnyTool[]
  extensions?: Extension[]
  /** Agent options; `compactor` is registered as the first extension, as the composition root does with its own. */
  agent?: Partial<AgentOptions> & { compactor?: Compactor }
  store?: MemoryStore
  session?: Session
  mock?: MockModel
}): Promise<Harness> {
  const mock = options.mock ?? (await startMockModel({ script: options.script }))
  if (options.mock) mock.push(...options.script)
  const store = options.store ?? new MemoryStore()
  const session = options.session ?? (await Session.create(store, { cwd: process.cwd() }))
  const adapter = createAdapter({ wire: 'chat', baseUrl: mock.url, apiKey: () => 'test-key' })
  const { compactor, ...agentOptions } = options.agent ?? {}
  const agent = await Agent.create({
    session,
    adapter,
    tools: options.tools ?? [echoTool],
    schemas: schemasOf,
    system: 'You are a test agent.',
    config: { model: 'deepseek-v4-flash', effort: 'high' },
    toolState: toolState(),
    extensions: [...(compactor ? [compactor] : []), ...(options.extensions ?? [])],
    sleep: async () => {},
    ...agentOptions,
  })
  return {
    agent,
    mock,
    session,
    store,
    bodies: () =>
      mock.requests.filter((r) => r.path.endsWith('/chat/completions')).map((r) => r.body as ReturnType<Harness['bodies']>[number]),
    close: async () => {
      await agent.close()
      if (!options.mock) await mock.close()
    },
  }
}

/** Asserts DESIGN principle 3: while the header is unchanged, each request's messages extend the previous ones. */
export function prefixViolations(bodies: { messages: unknown[]; tools?: unknown; model?: unknown }[]): string[] {
  const problems: string[] = []
  for (let i = 1; i < bodies.length; i++) {
    const a = bodies[i - 1]
    const b = bodies[i]
    if (JSON.stringify(a.tools) !== JSON.stringify(b.tools) || a.model !== b.model) continue
    const prev = a.messages.map((m) => JSON.stringify(m))
    const next = b.messages.map((m) => JSON.stringify(m))
    const k = prev.findIndex((m, j) => m !== next[j])
    if (k >= 0 || next.length < prev.length) problems.push(`request ${i} does not extend request ${i - 1} (first difference at message ${k})`)
  }
  return problems
}

/** Resolves when the agent commits its next event of `type` (e.g. the `tool/call` of a slow tool). */
export function nextCommitted(agent: Agent, type: EventType): Promise<void> {
  return new Promise((resolve) => {
    const off = agent.subscribe((e) => {
      if (e.type === 'event' && e.event.type === type) {
        off()
        resolve()
      }
    })
  })
}
