import type { Command } from 'commander'
import { doctorExitCode, doctorReport, doctorText } from '../../frontend/doctor/report.js'
import { reinHome } from '../../store/home.js'

/**
 * `rein doctor`: whether this machine and directory are ready for Rein, one line per check (the report `/doctor`
 * shows). Exit code 1 when a check failed; `--json` prints `{ok, checks}`.
 */
export function registerDoctorCommand(program: Command): void {
  program
    .command('doctor')
    .description('Check the API key, the endpoint, git, rg, tmux, bubblewrap, versions, settings, workspace trust and MCP servers.')
    .option('--json', 'print one JSON object')
    .action(async (flags: { json?: boolean }) => {
      const checks = await doctorReport({ cwd: process.cwd(), home: reinHome(), env: process.env })
      const code = doctorExitCode(checks)
      process.stdout.write(flags.json ? `${JSON.stringify({ ok: code === 0, checks })}\n` : `${doctorText(checks)}\n`)
      process.exitCode = code
    })
}
