import type { BuiltinCommand } from './types.js'

/**
 * `/doctor`: the report `rein doctor` prints (src/frontend/doctor), for the directory and home of this session. Loaded
 * when run, so the catalog costs no start-up time for it. Failed checks are part of the report, not a refusal: a
 * surface that refuses a command on a warning still shows it.
 */
export const doctorCommand: BuiltinCommand = {
  name: 'doctor',
  help: 'Check the key, the endpoint, git, rg, bubblewrap, versions, settings, trust and MCP servers',
  surfaces: ['tui', 'acp', 'rpc', 'web', 'print'],
  async run(ctx) {
    const { doctorReport, doctorText } = await import('../doctor/report.js')
    const checks = await doctorReport({ cwd: ctx.agent.cwd, home: ctx.home, env: process.env })
    ctx.reply(doctorText(checks), { title: 'Doctor' })
  },
}
