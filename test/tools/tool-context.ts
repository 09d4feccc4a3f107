import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createToolState, disposeToolState, type ToolStateOptions } from '../../src/tools/registry.js'
import type { AnyTool, ToolContext, ToolOutput, ToolState } from '../../src/tools/tool.js'

/** A real workspace in a temp directory with a real ToolContext, the way the agent builds one per call. */
export interface Workspace {
  /** The working directory (realpath, so symlinked temp dirs compare equal). */
  cwd: string
  /** A directory beside the workspace: "outside" for boundary tests. */
  outside: string
  state: ToolState
  records: { type: string; data: unknown }[]
  progress: string[]
  run(tool: AnyTool, args: unknown, options?: { signal?: AbortSignal }): Promise<ToolOutput>
  dispose(): Promise<void>
}

let calls = 0

export function makeWorkspace(options: Partial<ToolStateOptions> = {}): Workspace {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'rein-tools-')))
  const cwd = path.join(root, 'work')
  const outside = path.join(root, 'outside')
  mkdirSync(cwd)
  mkdirSync(outside)
  const state = createToolState({ spillDir: path.join(root, 'spill'), ...options })
  const records: { type: string; data: unknown }[] = []
  const progress: string[] = []
  return {
    cwd,
    outside,
    state,
    records,
    progress,
    async run(tool, args, runOptions) {
      const parsed = tool.schema.parse(args)
      const ctx: ToolContext = {
        cwd,
        callId: `call-${++calls}`,
        signal: runOptions?.signal ?? new AbortController().signal,
        state,
        record: (type, data) => records.push({ type, data }),
        progress: (text) => progress.push(text),
      }
      return tool.run(parsed, ctx)
    },
    async dispose() {
      await disposeToolState(state)
      rmSync(root, { recursive: true, force: true })
    },
  }
}

/** The text the model would read. */
export function textOf(output: ToolOutput): string {
  return output.content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n')
}
