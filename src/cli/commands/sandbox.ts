import type { Command } from 'commander'
import { readSandboxReport, sandboxReportText, type SandboxReport } from '../../frontend/sandbox-report.js'
import { reinHome } from '../../store/home.js'

export { readSandboxReport, sandboxReportText, type SandboxReport }

/**
 * `rein sandbox`: whether shell commands would run sandboxed in this workspace, whether this machine can, and the
 * policy after every settings layer (docs/sandbox.md). Starts nothing.
 */
export function registerSandboxCommand(program: Command): void {
  program
    .command('sandbox')
    .description('Show whether commands run sandboxed here, whether bubblewrap works, and the resolved sandbox policy.')
    .option('--json', 'print one JSON object')
    .action((flags: { json?: boolean }) => {
      const home = reinHome()
      let report: SandboxReport
      try {
        report = readSandboxReport({ cwd: process.cwd(), home })
      } catch (error) {
        process.stderr.write(`${(error as Error).message}\n`)
        process.exitCode = 1
        return
      }
      if (flags.json) {
        const { policy, ignored, available, reason } = report
        process.stdout.write(`${JSON.stringify({ policy, ignored, available, ...(reason !== undefined ? { reason } : {}) })}\n`)
        return
      }
      process.stdout.write(`${sandboxReportText(report, home)}\n`)
    })
}
