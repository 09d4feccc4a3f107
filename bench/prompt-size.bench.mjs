// The fixed prefix of every request: the system prompt plus the built-in tool schemas, in bytes and estimated
// tokens (bytes / 4, the estimate every Rein budget uses). Issue 24's target: at most 1,339 tokens with the next
// wave's tools (task, skill, exit_plan_mode), for which ~290 tokens are kept free; so today's tools aim at 1,050.
// Prints the total, each part's share, both targets and the headroom; fails above the 1,339 budget.
// Needs the build (`npm run build`).
import { systemPrompt } from '../dist/context/system-prompt.js'
import { builtinTools, toolSchemas } from '../dist/tools/registry.js'
import { createTaskTool } from '../dist/subagents/task-tool.js'
import { BUILTIN_AGENTS } from '../dist/subagents/agent-types.js'
import { runtimeText } from '../dist/context/runtime.js'

const BUDGET_TOKENS = 1339
/** Today's tools aim here, keeping ~290 tokens of the budget for the next wave's. */
const TODAY_TOKENS = 1050
const NEXT_WAVE = new Set(['task', 'skill', 'exit_plan_mode'])
const system = systemPrompt({ model: 'deepseek-v4-flash', cwd: '/home/user/projects/example' })
// The `task` tool joins the built-ins in every session (src/runtime/open.ts), with the built-in agent types.
const schemas = toolSchemas([...builtinTools(), createTaskTool(BUILTIN_AGENTS)])
const tokens = (bytes) => Math.ceil(bytes / 4)
const systemBytes = Buffer.byteLength(system)
const toolBytes = Buffer.byteLength(JSON.stringify(schemas))
// The first runtime-context reminder rides with every session's first request, so the side-by-side rig counts it as
// fixed prompt too (issue 36): a git repository on a branch, default mode.
const reminder = runtimeText({ date: '2026-12-01', permissionMode: 'default', git: { kind: 'repository', branch: 'main', dirty: false } })
const reminderBytes = Buffer.byteLength(reminder)
const totalBytes = systemBytes + toolBytes + reminderBytes
const total = tokens(totalBytes)
const share = (bytes) => `${((bytes / totalBytes) * 100).toFixed(1).padStart(5)} %`
const row = (label, bytes) =>
  console.log(`${label.padEnd(22)} ${String(bytes).padStart(6)} bytes  ~${String(tokens(bytes)).padStart(4)} tokens  ${share(bytes)}`)

row('system prompt', systemBytes)
for (const s of schemas) row(`  tool ${s.name}`, Buffer.byteLength(JSON.stringify(s)))
row(`tool schemas (${schemas.length})`, toolBytes)
row('first runtime reminder', reminderBytes)
const arrived = schemas.filter((s) => NEXT_WAVE.has(s.name)).length
const todayTarget = arrived ? BUDGET_TOKENS : TODAY_TOKENS
console.log(`fixed prompt total     ${String(totalBytes).padStart(6)} bytes  ~${total} tokens`)
console.log(
  `target                 ≤ ${BUDGET_TOKENS} tokens with the next wave's tools` +
    (arrived < NEXT_WAVE.size ? `; ≤ ${todayTarget} until they arrive (~${BUDGET_TOKENS - TODAY_TOKENS} kept for them)` : ''),
)
console.log(`headroom               ${BUDGET_TOKENS - total} tokens under ${BUDGET_TOKENS}, ${todayTarget - total} under ${todayTarget}`)
// 156 agent files (the case): the task tool's listing stays inside its budget.
const many = Array.from({ length: 156 }, (_, i) => ({ ...BUILTIN_AGENTS[0], name: `agent-${i}`, description: `Reviews module ${i} for the team's conventions and reports findings` }))
const manyBytes = Buffer.byteLength(JSON.stringify(toolSchemas([createTaskTool([...BUILTIN_AGENTS, ...many])])))
const fewBytes = Buffer.byteLength(JSON.stringify(toolSchemas([createTaskTool(BUILTIN_AGENTS)])))
console.log(`task tool with 156 more agent files: +${tokens(manyBytes - fewBytes)} tokens (its listing budget caps it; was ≈ 9K)`)
if (total > BUDGET_TOKENS) {
  console.error(`The system prompt and tool schemas are ~${total} tokens, over the ${BUDGET_TOKENS}-token budget.`)
  process.exit(1)
}
