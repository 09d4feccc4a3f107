// The fixed prefix of every request: the system prompt plus the built-in tool schemas, in bytes and estimated
// tokens (bytes / 4). Issue 5 requires it to stay under 2,500 tokens; this prints the figure and fails above it.
// Needs the build (`npm run build`).
import { systemPrompt } from '../dist/context/system-prompt.js'
import { builtinTools, toolSchemas } from '../dist/tools/registry.js'
import { createTaskTool } from '../dist/tools/task.js'
import { BUILTIN_AGENTS } from '../dist/subagents/agent-types.js'

const LIMIT_TOKENS = 2500
const system = systemPrompt({ model: 'deepseek-v4-flash', cwd: '/home/user/projects/example' })
// The `task` tool joins the built-ins in every session (src/runtime/open.ts), with the built-in agent types.
const schemas = toolSchemas([...builtinTools(), createTaskTool(BUILTIN_AGENTS)])
const systemBytes = Buffer.byteLength(system)
const toolBytes = Buffer.byteLength(JSON.stringify(schemas))
const tokens = (bytes) => Math.ceil(bytes / 4)

console.log(`system prompt      ${String(systemBytes).padStart(6)} bytes  ~${tokens(systemBytes)} tokens`)
for (const s of schemas) {
  const bytes = Buffer.byteLength(JSON.stringify(s))
  console.log(`  tool ${s.name.padEnd(12)} ${String(bytes).padStart(6)} bytes  ~${tokens(bytes)} tokens`)
}
console.log(`tool schemas (${schemas.length})   ${String(toolBytes).padStart(6)} bytes  ~${tokens(toolBytes)} tokens`)
const total = tokens(systemBytes + toolBytes)
console.log(`prefix total       ${String(systemBytes + toolBytes).padStart(6)} bytes  ~${total} tokens (limit ${LIMIT_TOKENS})`)
if (total >= LIMIT_TOKENS) {
  console.error(`The system prompt and tool schemas are ~${total} tokens, over the ${LIMIT_TOKENS}-token budget.`)
  process.exit(1)
}
