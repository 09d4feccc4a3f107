import type { Command } from 'commander'
import { readFileSync } from 'node:fs'
import { parseScript, startMockModel, type MockResponse } from '../../llm/mock/server.js'

interface MockModelFlags {
  script?: string
  port?: string
  host?: string
  record?: string
  models?: string
}

/**
 * `rein mock-model`: the project's mock DeepSeek server for demos and manual tests. Prints the base URL on the first
 * line of stdout (so scripts can read it) and runs until SIGINT or SIGTERM.
 */
export function registerMockModelCommand(program: Command): void {
  program
    .command('mock-model')
    .description('Run a mock DeepSeek server that answers from a script, on both wires, without a key.')
    .option('--script <file>', 'JSON array of scripted responses (see docs/model-access.md)')
    .option('--port <n>', 'port to listen on (default: any free port)')
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--record <file>', 'append every request received to this JSONL file')
    .option('--models <ids>', 'comma-separated ids GET /models lists (default: the catalog\'s)')
    .action(async (flags: MockModelFlags) => {
      let script: MockResponse[] = []
      let port = 0
      try {
        if (flags.script) script = loadScript(flags.script)
        if (flags.port !== undefined) port = parsePort(flags.port)
      } catch (error) {
        process.stderr.write(`${(error as Error).message}\n`)
        process.exitCode = 1
        return
      }
      const models = flags.models?.split(',').map((id) => id.trim()).filter(Boolean)
      const mock = await startMockModel({ script, port, host: flags.host, recordFile: flags.record, models })
      process.stdout.write(`${mock.url}\n`)
      process.stderr.write(`Mock model ready. Use DEEPSEEK_BASE_URL=${mock.url}; stop with Ctrl-C.\n`)
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve)
        process.once('SIGTERM', resolve)
      })
      await mock.close()
    })
}

function loadScript(file: string): MockResponse[] {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    throw new Error(`Cannot read the script ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'}); check the path.`)
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new Error(`The script ${file} is not valid JSON (${(error as Error).message}); fix it and try again.`)
  }
  return parseScript(value, file)
}

function parsePort(text: string): number {
  const port = Number(text)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a whole number from 0 to 65535, not "${text}".`)
  return port
}
