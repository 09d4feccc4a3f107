import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { CLI, cliEnv, sandbox } from '../support/cli.js'
import type { Line } from '../support/stream-json-client.js'
import type { SDKUserMessage } from '../../interop/claude-agent-sdk/node_modules/@anthropic-ai/claude-agent-sdk/sdk.js'

const ROOT = resolve(import.meta.dirname, '../..')
/** The Claude Agent SDK, installed apart without its bundled Claude Code binary (docs/testing.md). */
export const AGENT_SDK = join(ROOT, 'interop', 'claude-agent-sdk', 'node_modules', '@anthropic-ai', 'claude-agent-sdk')

export type AgentSdk = typeof import('../../interop/claude-agent-sdk/node_modules/@anthropic-ai/claude-agent-sdk/sdk.js')

/** Loads the real SDK's JavaScript (not only its types), failing with how to install it when it is missing. */
export async function loadAgentSdk(): Promise<AgentSdk> {
  if (!existsSync(join(AGENT_SDK, 'sdk.mjs'))) throw new Error('The Claude Agent SDK is not installed; run `npm run -s interop`.')
  return (await import(pathToFileURL(join(AGENT_SDK, 'sdk.mjs')).href)) as AgentSdk
}

/**
 * The executable an SDK program is pointed at (`pathToClaudeCodeExecutable`): a script that only execs the built Rein
 * with the SDK's arguments unchanged (`--verbose`, `--permission-prompt-tool=stdio`, no `-p`), recording them one per
 * line in `args.txt`, and copies Rein's stdout to `stdout.jsonl` for the type check.
 */
export function reinForSdk(): { exe: string; cwd: string; home: string; stdoutFile: string; args(): string[]; lines(): Line[] } {
  const box = sandbox()
  const bin = join(box.root, 'bin')
  mkdirSync(bin)
  const exe = join(bin, 'claude')
  const stdoutFile = join(box.root, 'stdout.jsonl')
  const argsFile = join(box.root, 'args.txt')
  writeFileSync(
    exe,
    [
      '#!/usr/bin/env bash',
      `printf '%s\\n' "$@" > ${JSON.stringify(argsFile)}`,
      `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@" > >(tee -a ${JSON.stringify(stdoutFile)})`,
      '',
    ].join('\n'),
  )
  chmodSync(exe, 0o755)
  return {
    exe,
    cwd: box.cwd,
    home: box.home,
    stdoutFile,
    args: () => (existsSync(argsFile) ? readFileSync(argsFile, 'utf8').split('\n').slice(0, -1) : []),
    lines: () =>
      existsSync(stdoutFile)
        ? readFileSync(stdoutFile, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as Line)
        : [],
  }
}

/** The environment an SDK program passes to Rein: the mock's URL, a private home, a throwaway key. */
export function sdkEnv(url: string, home: string): Record<string, string> {
  const env = cliEnv({ url, home })
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => typeof e[1] === 'string'))
}

/** An SDK program's streaming input: prompts pushed one at a time, read by `query()` until `end()`. */
export function promptQueue() {
  const waiting: SDKUserMessage[] = []
  let wake: (() => void) | undefined
  let ended = false
  return {
    push(text: string) {
      waiting.push({ type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null, session_id: '' } as SDKUserMessage)
      wake?.()
    },
    end() {
      ended = true
      wake?.()
    },
    async *[Symbol.asyncIterator](): AsyncGenerator<SDKUserMessage> {
      for (;;) {
        const next = waiting.shift()
        if (next) yield next
        else if (ended) return
        else await new Promise<void>((resolve) => (wake = resolve))
      }
    },
  }
}
