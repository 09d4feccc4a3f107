import type { Command } from 'commander'
import { registerRunCommand } from './run.js'

type Register = (program: Command) => void

/**
 * Subcommands, each loaded only when it is the one invoked (or for help), so `rein --version` and `rein -p` do not
 * pay for the ACP, MCP and terminal-UI libraries at start-up.
 */
const subcommands: Record<string, () => Promise<Register>> = {
  sessions: async () => {
    const { registerSessionsCommand } = await import('./sessions.js')
    const { renderRequestBodies, renderRequests, requestDigests } = await import('../../frontend/session-requests.js')
    return (program) =>
      registerSessionsCommand(program, {
        verifyChecks: [requestDigests],
        renderRequests: (header, events, o) => (o.json ? renderRequestBodies : renderRequests)(header, events, o.step),
      })
  },
  acp: async () => (await import('./acp.js')).registerAcpCommand,
  rpc: async () => (await import('./rpc.js')).registerRpcCommand,
  demo: async () => (await import('./demo.js')).registerDemoCommand,
  mcp: async () => (await import('./mcp.js')).registerMcpCommand,
  hooks: async () => (await import('./hooks.js')).registerHooksCommand,
  plugin: async () => (await import('./plugin.js')).registerPluginCommand,
  trust: async () => (await import('./trust.js')).registerTrustCommand,
  'mock-model': async () => (await import('./mock-model.js')).registerMockModelCommand,
  models: async () => (await import('./models.js')).registerModelsCommand,
  web: async () => (await import('./web.js')).registerWebCommand,
  batch: async () => (await import('./batch.js')).registerBatchCommand,
  worker: async () => (await import('./worker.js')).registerWorkerCommand,
  rewind: async () => (await import('./rewind.js')).registerRewindCommand,
  checkpoints: async () => (await import('./checkpoints.js')).registerCheckpointsCommand,
  sandbox: async () => (await import('./sandbox.js')).registerSandboxCommand,
  doctor: async () => (await import('./doctor.js')).registerDoctorCommand,
}

/** Registers the root command and the subcommands `argv` can reach. */
export async function registerCommands(program: Command, argv: readonly string[]): Promise<void> {
  registerRunCommand(program)
  const args = argv.slice(2)
  const first = args.find((a) => !a.startsWith('-'))
  const help = args.includes('--help') || args.includes('-h') || first === 'help'
  const names = first !== undefined && first in subcommands ? [first] : help ? Object.keys(subcommands) : []
  for (const name of names) (await subcommands[name]())(program)
}
