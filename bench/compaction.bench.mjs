// What compaction costs and saves, in figures: the same 60-step scripted session (one file read per step, then an
// answer) run through the built CLI against the mock model twice — with a small configured context window, so
// Rein compacts automatically, and with the catalog's window, so it never does. For each run: prompt tokens sent,
// cache-hit share, simulated cost (`costOf` over the usage the mock reported, as logged), the largest prompt, and
// for the compacting run the cache-hit share of each summary request. Tokens are the mock's estimate (bytes / 4,
// cache hits on whole cache-prefix units, as the mock simulates DeepSeek's rule). Needs the build (`npx tsc -p .`). Uses only loopback and temp directories.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { costOf, modelInfo } from '../dist/llm/catalog.js'
import { startMockModel } from '../dist/llm/mock/server.js'
import { runPrint } from './run-print.mjs'

const MODEL = 'deepseek-flash'
const STEPS = 60
const WINDOW = 16_000
const LINES_PER_FILE = 20
const SUMMARY_REQUEST = 'The conversation above is about to be replaced by a summary'

async function session(window) {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'rein-compaction-bench-')))
  const home = join(base, 'home')
  const cwd = join(base, 'repo')
  mkdirSync(home, { recursive: true })
  mkdirSync(join(cwd, '.git'), { recursive: true })
  mkdirSync(join(cwd, '.rein'), { recursive: true })
  if (window) writeFileSync(join(cwd, '.rein', 'settings.json'), JSON.stringify({ models: { [MODEL]: { contextWindow: window } } }))
  for (let i = 0; i < STEPS; i++) {
    writeFileSync(join(cwd, `file${i}.ts`), `export const value${i} = ${i} // one line of a source file of moderate length\n`.repeat(LINES_PER_FILE))
  }
  const script = [
    {
      match: SUMMARY_REQUEST,
      repeat: true,
      text: 'The user asked to read every file in the repository. Files file0.ts onward were read; none was changed; no errors. Next: read the remaining files, then answer.',
    },
  ]
  for (let i = 0; i < STEPS - 1; i++) script.push({ toolCalls: [{ name: 'read', arguments: { file_path: `file${i}.ts` } }] })
  script.push({ text: 'Read them all.' })
  const mock = await startMockModel({ script })
  try {
    await runPrint({ prompt: 'Read every file.', cwd, home, url: mock.url })
    const dir = join(home, 'sessions', readdirSync(join(home, 'sessions'))[0])
    const file = readdirSync(dir).find((f) => f.endsWith('.jsonl'))
    const events = readFileSync(join(dir, file), 'utf8').trim().split('\n').slice(1).map((line) => JSON.parse(line))
    return { requests: [...mock.requests], events }
  } finally {
    await mock.close()
    rmSync(base, { recursive: true, force: true })
  }
}

const isSummary = (r) => {
  const last = r.body.messages.at(-1)
  const text = typeof last.content === 'string' ? last.content : last.content.map((p) => p.text ?? '').join('')
  return text.startsWith(SUMMARY_REQUEST)
}

function figures(run) {
  const info = modelInfo(MODEL)
  const usages = run.events
    .filter((e) => (e.type === 'assistant/message' || e.type === 'compaction/end') && e.data.usage)
    .map((e) => ({ usage: e.data.usage, time: e.time }))
  const cost = usages.reduce((n, u) => n + costOf(u.usage, info, u.time), 0)
  const prompt = run.requests.reduce((n, r) => n + r.promptTokens, 0)
  const hit = run.requests.reduce((n, r) => n + r.cacheHitTokens, 0)
  const summaries = run.requests.filter(isSummary)
  return {
    requests: run.requests.length,
    compactions: run.events.filter((e) => e.type === 'compaction/end' && e.data.outcome === 'replaced').length,
    prompt,
    hit,
    uncached: prompt - hit,
    largest: Math.max(...run.requests.map((r) => r.promptTokens)),
    cost,
    summaries: summaries.map((r) => ({ prompt: r.promptTokens, hit: r.cacheHitTokens })),
  }
}

const withCompaction = figures(await session(WINDOW))
const without = figures(await session(undefined))

const row = (label, f) =>
  `${label.padEnd(20)} ${String(f.requests).padStart(8)} ${String(f.compactions).padStart(11)} ${String(f.prompt).padStart(13)} ` +
  `${((f.hit / f.prompt) * 100).toFixed(1).padStart(9)}% ${String(f.uncached).padStart(9)} ${String(f.largest).padStart(14)} ` +
  `${('$' + f.cost.toFixed(5)).padStart(10)}`
console.log(`${STEPS}-step session, ${MODEL} prices, mock tokens (bytes / 4):`)
console.log(`${''.padEnd(20)} requests compactions prompt tokens cache-hit  uncached largest prompt  sim. cost`)
console.log(row(`window ${WINDOW}`, withCompaction))
console.log(row('window 1,000,000', without))
console.log(
  `prompt tokens saved  ${(((without.prompt - withCompaction.prompt) / without.prompt) * 100).toFixed(1)}%, ` +
    `simulated cost saved ${(((without.cost - withCompaction.cost) / without.cost) * 100).toFixed(1)}%`,
)
for (const [i, s] of withCompaction.summaries.entries()) {
  console.log(`summary request ${i + 1}     ${s.prompt} prompt tokens, ${s.hit} from cache (${((s.hit / s.prompt) * 100).toFixed(1)}%)`)
}
if (!withCompaction.compactions) {
  console.error('The small-window run never compacted; the benchmark measures nothing.')
  process.exitCode = 1
}
if (withCompaction.summaries.some((s) => s.hit / s.prompt < 0.9)) {
  console.error('A summary request was served less than 90% from cache: its prefix no longer matches the session.')
  process.exitCode = 1
}
