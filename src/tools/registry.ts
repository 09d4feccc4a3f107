import { z } from 'zod'
import type { ToolSchema } from '../llm/messages.js'
import { bashTool } from './bash.js'
import { editTool } from './edit.js'
import { globTool } from './glob.js'
import { grepTool } from './grep.js'
import { stopAllJobs } from './job-table.js'
import { jobKillTool, jobOutputTool } from './jobs.js'
import { lsTool } from './ls.js'
import { ALWAYS_SECRET } from './process-group.js'
import { readTool } from './read.js'
import { skillTool } from './skill.js'
import { exitPlanModeTool } from './exit-plan-mode.js'
import type { AnyTool, ToolState } from './tool.js'
import { todoWriteTool } from './todo-write.js'
import { ALLOW_PRIVATE_KEY, webFetchTool } from './web-fetch.js'
import { writeTool } from './write.js'

/** Every built-in tool, in no particular order (`toolSchemas` sorts). */
export function builtinTools(): AnyTool[] {
  return [
    readTool,
    writeTool,
    editTool,
    bashTool,
    jobOutputTool,
    jobKillTool,
    grepTool,
    globTool,
    lsTool,
    todoWriteTool,
    webFetchTool,
    skillTool,
    exitPlanModeTool,
  ]
}

/**
 * The tools as the model is told about them, sorted by name so the request prefix is the same for the same set of
 * tools (DESIGN principle 3). `parameters` is the JSON Schema of what the model may send (zod's input view), without
 * the `$schema` key, which carries no meaning for the model and only costs tokens.
 */
export function toolSchemas(tools: readonly AnyTool[]): ToolSchema[] {
  return [...tools]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((tool) => {
      // A tool may carry the exact JSON Schema to show the model (MCP tools: the server's own schema).
      const schema = tool.parameters ?? (z.toJSONSchema(tool.schema, { io: 'input' }) as Record<string, unknown>)
      const { $schema: _ignored, ...parameters } = schema
      return { name: tool.name, description: tool.description, parameters: dropSafeIntegerBounds(parameters) }
    })
}

/** zod states `int()` as bounded by ±(2^53−1); those bounds say nothing to a model and cost tokens in every request. */
function dropSafeIntegerBounds(schema: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(schema)) {
    if ((key === 'minimum' || key === 'maximum') && Math.abs(value as number) === Number.MAX_SAFE_INTEGER) continue
    out[key] = Array.isArray(value)
      ? value.map((v) => (isObject(v) ? dropSafeIntegerBounds(v) : v))
      : isObject(value)
        ? dropSafeIntegerBounds(value)
        : value
  }
  return out
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

export interface ToolStateOptions {
  spillDir: string
  /** Variables never passed to commands, besides the built-in list (src/tools/child-env.ts). */
  secretEnv?: Iterable<string>
  /** Variables whose names look like secrets that commands still receive (settings `passEnv`). */
  passEnv?: Iterable<string>
  /** Lets web_fetch reach private and loopback addresses (settings `webFetch.allowPrivate`). */
  allowPrivateNetwork?: boolean
}

export function createToolState(options: ToolStateOptions): ToolState {
  const extra = new Map<string, unknown>()
  if (options.allowPrivateNetwork) extra.set(ALLOW_PRIVATE_KEY, true)
  return {
    files: new Map(),
    spillDir: options.spillDir,
    extra,
    secretEnv: new Set([...ALWAYS_SECRET, ...(options.secretEnv ?? [])]),
    passEnv: new Set(options.passEnv ?? []),
  }
}

/** Releases what the tools hold: kills every background job's process group and waits for it to end. */
export async function disposeToolState(state: ToolState): Promise<void> {
  await stopAllJobs(state)
}
