import { cpSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { extensionContext } from '../../src/agent/extension-context.js'
import type { ExtensionContext } from '../../src/agent/extensions.js'
import { toBlocks } from '../../src/agent/types.js'
import { textOfBlocks } from '../../src/context/produced-messages.js'
import type { InputBlock } from '../../src/llm/messages.js'
import type { Source } from '../../src/session/events.js'
import { Session } from '../../src/session/session.js'
import { MemoryStore } from '../../src/store/memory-store.js'

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
export function claudeHooks(event: string, command: string, matcher?: string, timeout?: number): { hooks: Record<string, object[]> } {
  return { hooks: { [event]: [{ ...(matcher !== undefined ? { matcher } : {}), hooks: [{ type: 'command', command, ...(timeout ? { timeout } : {}) }] }] } }
}

/** What the extension asked of its context, besides the events it logged to the session. */
export interface Recorded {
  /** The session's events after creation, as `{type, data}`. */
  readonly events: { type: string; data: Record<string, unknown> }[]
  injected: { content: InputBlock[]; source?: Source }[]
  steered: { content: string; source?: Source }[]
  notices: { level: string; message: string }[]
  stopped: string[]
}

/**
 * The context an extension point receives, over a real session on a memory store, recording what the extension
 * asks for (inject, steer, notify, stopTurn) instead of running a loop. The end-to-end tests drive the real agent
 * through the CLI.
 */
export async function recordingContext(cwd: string): Promise<{ agent: ExtensionContext; session: Session; recorded: Recorded }> {
  const session = await Session.create(new MemoryStore(), { cwd })
  const recorded: Recorded = {
    get events() {
      return session.events.map((e) => ({ type: e.type, data: e.data as unknown as Record<string, unknown> }))
    },
    injected: [],
    steered: [],
    notices: [],
    stopped: [],
  }
  const agent = extensionContext({
    session,
    permissionMode: 'default',
    config: { model: 'deepseek-v4-flash', effort: 'high' },
    inject(content, source) {
      recorded.injected.push({ content: toBlocks(content), source })
      return 'i'
    },
    steer(content, source) {
      recorded.steered.push({ content: textOfBlocks(toBlocks(content)), source })
      return 's'
    },
    notify(level, message) {
      recorded.notices.push({ level, message })
    },
    stopTurn(message) {
      recorded.stopped.push(message)
    },
    setPermissionMode() {
      throw new Error('hooks do not switch the permission mode')
    },
    setModel() {
      throw new Error('hooks do not switch the model')
    },
  })
  return { agent, session, recorded }
}
