import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'

const ROOT = resolve(import.meta.dirname, '../..')
const AGENT_SDK = join(ROOT, 'interop', 'claude-agent-sdk')
const tsc = promisify(execFile)

/** The Agent SDK type a stream-json line is assigned to. */
function sdkType(line: { type: string; subtype?: unknown }): string {
  switch (line.type) {
    case 'system':
      return line.subtype === 'api_retry' ? 'SDKAPIRetryMessage' : line.subtype === 'compact_boundary' ? 'SDKCompactBoundaryMessage' : 'SDKSystemMessage'
    case 'assistant':
      return 'SDKAssistantMessage'
    case 'user':
      return 'SDKUserMessage'
    case 'stream_event':
      return 'SDKPartialAssistantMessage'
    case 'result':
      return 'SDKResultMessage'
    default:
      return 'never'
  }
}

/**
 * Compiles every line as its Agent SDK message type under `tsc --strict` and returns the compiler's complaints: `''`
 * when every line type-checks. Rein's own figures sit under one extra key, `rein`, which consumers ignore.
 */
export async function compileAsSdkMessages(lines: readonly { type: string; subtype?: unknown }[]): Promise<string> {
  if (!existsSync(join(AGENT_SDK, 'node_modules', '@anthropic-ai', 'claude-agent-sdk', 'sdk.d.ts'))) {
    throw new Error('The Claude Agent SDK types are not installed; run `npm ci --prefix interop/claude-agent-sdk --omit=optional`.')
  }
  // Under the SDK's package, so that the compiled file resolves the SDK (and @types/node from the root) by walking up.
  const dir = join(AGENT_SDK, 'node_modules', '.cache', 'rein-claude-sdk-types')
  mkdirSync(dir, { recursive: true })
  const work = mkdtempSync(join(dir, 'run-'))
  try {
    const file = join(work, 'lines.ts')
    writeFileSync(
      file,
      [
        "import type { SDKAPIRetryMessage, SDKAssistantMessage, SDKCompactBoundaryMessage, SDKMessage, SDKPartialAssistantMessage, SDKResultMessage, SDKSystemMessage, SDKUserMessage } from '@anthropic-ai/claude-agent-sdk'",
        'type ReinExtras = { rein?: Record<string, unknown> }',
        ...lines.map((line, i) => `const line${i}: ${sdkType(line)} & ReinExtras = ${JSON.stringify(line, null, 1)}`),
        `export const all: SDKMessage[] = [${lines.map((_, i) => `line${i}`).join(', ')}]`,
        '',
      ].join('\n'),
    )
    const args = ['--strict', '--noEmit', '--skipLibCheck', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--types', 'node', file]
    return await tsc(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), ...args], { cwd: work }).then(
      () => '',
      (error: { stdout?: string; message: string }) => error.stdout || error.message,
    )
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}
