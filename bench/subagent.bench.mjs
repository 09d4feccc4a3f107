// Subagent overhead: a parent session whose every step is one `task` call, each child answering at once. Printed:
// the time from the parent's `tool/call` of `task` to the child's first request at the mock (creating the child's
// session and agent, the subagent/start flush, the child's first request), the time from the child's turn end to the
// parent's next request (closing the child, subagent/end, the result), and the cache-hit share of child requests
// after the first child (the child prefix is stable per type). Real JSONL logs in a temp dir; mock on loopback.
// Needs the build (`npm run build`).
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openAgent } from '../dist/runtime/open.js'
import { createAdapter } from '../dist/llm/create.js'
import { startMockModel } from '../dist/llm/mock/server.js'

const CHILDREN = 30
const base = realpathSync(mkdtempSync(join(tmpdir(), 'rein-subagent-bench-')))
const home = join(base, 'home')
const cwd = join(base, 'repo')
mkdirSync(home, { recursive: true })
mkdirSync(join(cwd, '.git'), { recursive: true })

const PARENT = 'You are Rein, a coding agent'
const CHILD = 'subagent of type "explore"'
const script = []
for (let i = 0; i < CHILDREN; i++) {
  script.push({ system: PARENT, toolCalls: [{ name: 'task', arguments: { description: `job ${i}`, prompt: `Job ${i}: list nothing.`, subagent_type: 'explore' } }] })
  script.push({ system: CHILD, match: `Job ${i}:`, text: `done ${i}` })
}
script.push({ system: PARENT, text: 'All done.' })
const mock = await startMockModel({ script })
const arrivals = []
mock.requests.push = function (...records) {
  for (const r of records) arrivals.push({ at: performance.now(), child: JSON.stringify(r.body?.messages?.[0] ?? '').includes('subagent of type'), record: r })
  return Array.prototype.push.apply(this, records)
}

const agent = await openAgent({ cwd, home, permissionMode: 'bypass', adapter: createAdapter({ wire: 'chat', baseUrl: mock.url, apiKey: () => 'bench' }) })
const taskCalls = []
const childEnds = []
agent.subscribe((live) => {
  if (live.type === 'event' && live.event.type === 'tool/call' && live.event.data.name === 'task') taskCalls.push(performance.now())
  if (live.type === 'tool-progress' && /\] completed\n$/.test(live.text)) childEnds.push(performance.now())
})
agent.followUp('Run the jobs.')
await agent.whenIdle()
await agent.close()
await mock.close()

const start = []
const finish = []
for (let i = 0; i < CHILDREN; i++) {
  const firstChild = arrivals.find((a) => a.child && a.at > taskCalls[i])
  const nextParent = arrivals.find((a) => !a.child && a.at > childEnds[i])
  if (firstChild) start.push(firstChild.at - taskCalls[i])
  if (nextParent) finish.push(nextParent.at - childEnds[i])
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)]
const later = arrivals.filter((a) => a.child).slice(1).map((a) => a.record)
const hit = later.reduce((s, r) => s + (r.cacheHitTokens ?? 0), 0) / Math.max(1, later.reduce((s, r) => s + (r.promptTokens ?? 0), 0))
console.log(`children                      ${CHILDREN} (explore, one request each)`)
console.log(`task call → child's request   median ${median(start).toFixed(1)} ms, p95 ${p95(start).toFixed(1)} ms`)
console.log(`child's end → parent request  median ${median(finish).toFixed(1)} ms, p95 ${p95(finish).toFixed(1)} ms`)
console.log(`cache hit, children 2..${CHILDREN}       ${(hit * 100).toFixed(0)}% of prompt tokens`)
rmSync(base, { recursive: true, force: true })
