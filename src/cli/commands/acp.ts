import { readFileSync } from 'node:fs'
import { Option, type Command } from 'commander'
import type { SessionInfo } from '@agentclientprotocol/sdk'
import { serveAcpOnStdio } from '../../acp/stdio.js'
import { openAgentWithContext } from '../../runtime/open.js'
import type { Effort } from '../../llm/adapter.js'
import { DEFAULT_MODEL, modelInfo } from '../../llm/catalog.js'
import { MISSING_KEY_MESSAGE, resolveApiKey } from '../../llm/credentials.js'
import type { PermissionMode } from '../../agent/types.js'
import { reinHome } from '../../store/home.js'
import { openStore } from '../../runtime/open-store.js'
import { fail } from '../fail.js'
import { Checkpoints } from '../../checkpoints/engine.js'
import { SnapshotFiles } from '../../checkpoints/file-at.js'

interface AcpFlags {
  model?: string
  effort?: Effort
  permissionMode?: PermissionMode
  allow?: string[]
  trustProject?: boolean
  /** The old spelling of `--trust-project`, kept as an alias. */
  trustProjectHooks?: boolean
}

/** `rein acp`: serve the Agent Client Protocol on stdio for editors such as Zed (docs/acp.md). */
export function registerAcpCommand(program: Command): void {
  program
    .command('acp')
    .description('serve the Agent Client Protocol on stdin/stdout, for editors such as Zed')
    .option('--model <id>', 'model id')
    .option('--effort <level>', 'thinking effort: off, low, high, max')
    .option('--permission-mode <mode>', 'permission mode of new sessions: default, accept-edits, plan, bypass')
    .option('--allow <rule...>', 'extra allow rules')
    .option('--trust-project', "trust this workspace's settings, hooks and MCP servers for this run only")
    .addOption(new Option('--trust-project-hooks', 'alias of --trust-project').hideHelp())
    .action(async (flags: AcpFlags) => {
      try {
        process.exitCode = await runAcp(flags)
      } catch (error) {
        fail(error)
      }
      // Every session is closed and its log flushed by now; child processes and timers left by other parts must
      // not keep an editor's agent process alive after the editor has gone.
      process.exit()
    })
}

async function runAcp(flags: AcpFlags): Promise<number> {
  const env = process.env
  const home = reinHome(env)
  const store = await openStore({ home, env })
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
  return serveAcpOnStdio({
    version: pkg.version,
    acceptsImages: modelInfo(flags.model ?? DEFAULT_MODEL).images,
    apiKeyAvailable: () => resolveApiKey(env, home) !== undefined,
    missingKeyMessage: MISSING_KEY_MESSAGE,
    snapshotFiles: (cwd) => new SnapshotFiles(new Checkpoints({ home, cwd, env }).gitDir, cwd),
    // Startup problems (the untrusted-workspace notice among them) reach the editor as notices once it listens.
    openAgent: async (options) => {
      const opened = await openAgentWithContext({
        ...options,
        home,
        env,
        model: flags.model,
        effort: flags.effort,
        permissionMode: options.permissionMode ?? flags.permissionMode,
        allow: flags.allow,
        trustProject: flags.trustProject || flags.trustProjectHooks,
      })
      for (const problem of opened.problems) opened.agent.notify('warning', problem)
      return opened.agent
    },
    listSessions: async (cwd) => {
      const summaries = await store.summaries(cwd ?? 'all')
      summaries.sort((a, b) => b.updatedAt - a.updatedAt)
      return summaries.map(
        (s): SessionInfo => ({
          sessionId: s.id,
          cwd: s.cwd,
          title: s.title || null,
          updatedAt: new Date(s.updatedAt).toISOString(),
        }),
      )
    },
  })
}
