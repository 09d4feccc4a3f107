import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import ignore from 'ignore'
import { glob } from 'tinyglobby'
import { addLocalAllowRule, type Settings } from '../../config/settings.js'
import { costOf, modelInfo } from '../../llm/catalog.js'
import { modelOverridesOf } from '../../llm/model-settings.js'
import { keepingTrust } from '../../runtime/workspace-trust.js'
import { openStore } from '../../runtime/open-store.js'
import { listSessions } from '../../store/listing.js'
import { readSessionLog } from '../../session/load.js'
import { renderTranscript } from '../../frontend/session-transcript.js'
import { readSandboxReport, sandboxReportText } from '../commands/sandbox.js'
import type { TuiServices } from './services.js'
import { readAttachment } from './attach-file.js'
import { filePromptHistory } from './history.js'

/** More files than this and `@` completion lists only the first ones found: completion must stay instant. */
const MAX_FILES = 20_000

/** Workspace files for `@path` completion: not ignored by the root `.gitignore`, never inside `.git` or `node_modules`. */
export async function listWorkspaceFiles(cwd: string): Promise<string[]> {
  const files = await glob('**/*', { cwd, ignore: ['**/node_modules/**', '**/.git/**'], dot: true, onlyFiles: true })
  let rules = ignore()
  try {
    rules = rules.add(readFileSync(join(cwd, '.gitignore'), 'utf8'))
  } catch {
    // No .gitignore: nothing more to leave out.
  }
  return rules.filter(files).sort().slice(0, MAX_FILES)
}

/** The services backed by Rein's real catalog, settings and session store; `sandbox` is the session's `--sandbox`/`--no-sandbox`. */
export function realServices(options: { home: string; settings: Settings; sandbox?: boolean }): TuiServices {
  const overrides = modelOverridesOf(options.settings.models)
  // REIN_STORE or store.url, like the agent's own store; opened on first use.
  let store: ReturnType<typeof openStore> | undefined
  return {
    facts: (model) => {
      const info = modelInfo(model, overrides)
      return { contextWindow: info.contextWindow, cost: (usage, time) => costOf(usage, info, time) }
    },
    addLocalAllowRule: (cwd, rule) => keepingTrust({ cwd, home: options.home }, () => addLocalAllowRule(cwd, rule)),
    listSessions: async (cwd) => {
      const all = await listSessions(await (store ??= openStore({ home: options.home })), cwd)
      const titles = new Map(all.map((s) => [s.id, s.title]))
      // A subagent's session is opened from its parent (`/subagents`), not resumed on its own.
      return all
        .filter((s) => !s.subagent)
        .map((s) => ({
          id: s.id,
          title: s.title || undefined,
          updatedAt: s.updatedAt,
          bytes: s.bytes,
          turns: s.turns,
          ...(s.parent ? { forkOf: titles.get(s.parent.id) || s.parent.id.slice(0, 8) } : {}),
        }))
    },
    workspaceFiles: listWorkspaceFiles,
    ...(options.settings.tui?.notifications ? { notifications: options.settings.tui.notifications } : {}),
    promptHistory: filePromptHistory(options.home),
    attach: (cwd, path) => readAttachment(cwd, path, { reinHome: options.home, deny: options.settings.permissions?.deny ?? [] }),
    transcript: async (id) => {
      const log = await readSessionLog(await (store ??= openStore({ home: options.home })), id)
      return renderTranscript(log.header, log.events)
    },
    sandboxReport: (cwd) => {
      const flag = options.sandbox !== undefined ? { flag: options.sandbox } : {}
      try {
        return sandboxReportText(readSandboxReport({ cwd, home: options.home, ...flag }), options.home)
      } catch (error) {
        return error instanceof Error ? error.message : String(error)
      }
    },
    permissionRules: () => ({
      allow: options.settings.permissions?.allow ?? [],
      ask: options.settings.permissions?.ask ?? [],
      deny: options.settings.permissions?.deny ?? [],
    }),
  }
}
