import { cpSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { AgentApi } from '../../src/agent/types.js'
import type { InputBlock } from '../../src/llm/messages.js'
import type { Source } from '../../src/session/events.js'

export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'hooks')

/** A user's machine in a temp dir: a home (`~/.claude`, `~/.codex`), REIN_HOME, and a project with `.git`. */
export interface Workspace {
  root: string
  userHome: string
  home: string
  project: string
}

export function makeWorkspace(): Workspace {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'rein-hooks-')))
  const workspace = { root, userHome: join(root, 'user'), home: join(root, 'rein-home'), project: join(root, 'project') }
  mkdirSync(workspace.userHome, { recursive: true })
  mkdirSync(workspace.home, { recursive: true })
  mkdirSync(join(workspace.project, '.git'), { recursive: true })
  return workspace
}

export function writeJson(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, JSON.stringify(value, null, 2))
}

/** Copies a corpus script into the project's `.claude/hooks/`, the way users keep their hooks. */
export function installScript(project: string, name: string): string {
  const target = join(project, '.claude', 'hooks', name)
  mkdirSync(dirname(target), { recursive: true })
  cpSync(join(FIXTURES, name), target)
  return target
}

/** A Claude Code settings object with one handler. */
export function claudeHooks(event: string, command: string, matcher?: string, timeout?: number): unknown {
  return { hooks: { [event]: [{ ...(matcher !== undefined ? { matcher } : {}), hooks: [{ type: 'command', command, ...(timeout ? { timeout } : {}) }] }] } }
}

/** What the recording agent saw: the log it was asked to append to, and what it was asked to do. */
export interface Recorded {
  events: { type: string; data: Record<string, unknown> }[]
  injected: { content: InputBlock[]; source?: Source }[]
  steered: { content: string; source?: Source }[]
  notices: { level: string; message: string }[]
  cancelled: number
  stopped: string[]
}

/**
 * An AgentApi that records instead of running a model, for driving the hooks extension point by point. The
 * end-to-end tests drive the real agent through the CLI.
 */
export function recordingAgent(cwd: string): { agent: AgentApi; recorded: Recorded } {
  const recorded: Recorded = { events: [], injected: [], steered: [], notices: [], cancelled: 0, stopped: [] }
  const session = {
    id: 'session-1',
    path: join(cwd, 'session.jsonl'),
    append(type: string, data: Record<string, unknown>) {
      recorded.events.push({ type, data })
    },
  }
  const text = (content: string | InputBlock[]) => (typeof content === 'string' ? content : content.map((b) => (b.type === 'text' ? b.text : '')).join(''))
  const agent = {
    session,
    cwd,
    config: { model: 'deepseek-v4-flash' },
    permissionMode: 'default',
    busy: true,
    followUp: () => 'f',
    steer(content: string | InputBlock[], source?: Source) {
      recorded.steered.push({ content: text(content), source })
      return 's'
    },
    inject(content: string | InputBlock[], source?: Source) {
      recorded.injected.push({ content: typeof content === 'string' ? [{ type: 'text', text: content }] : content, source })
      return 'i'
    },
    cancel() {
      recorded.cancelled++
    },
    stopTurn(message: string) {
      recorded.stopped.push(message)
    },
    whenIdle: async () => undefined,
    subscribe: () => () => undefined,
    setPermissionMode: () => undefined,
    setModel: () => undefined,
    notify(level: string, message: string) {
      recorded.notices.push({ level, message })
    },
    close: async () => undefined,
  }
  // The recording agent implements only what the hooks extension touches; the cast names that narrowing.
  return { agent: agent as unknown as AgentApi, recorded }
}
