// Built-in grep against ripgrep, and glob, on a 100K-file tree (SEARCH_BENCH_FILES sets the size). The tree is built
// once in TMPDIR (rein-search-bench-<files>, kept and reused by later runs; delete it to rebuild): 1,000 directories
// of small source-like files, half of them .ts. Two searches, each engine in turn within every round (SEARCH_BENCH_ROUNDS,
// default 3) so both meet the same load: `needle` (in 1,000 files: cut at 250 results, so the built-in search stops
// early) and `// file 99/` (in the 100 files of one directory: every file is read, the whole walk). Prints medians,
// the built-in search's CPU (both its threads), ripgrep with `--sort path` (one thread) beside Rein's way (threads,
// sorted afterwards), and the load average.
// Goals (issue 36): the built-in grep at most 3× ripgrep (judged on the whole walk); glob returns the first 200 of 50K
// matches without statting the rest. Needs the build and, for the ratio, ripgrep on PATH.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { createRequire, syncBuiltinESMExports } from 'node:module'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { builtinGrep } from '../dist/tools/grep-builtin.js'
import { findRipgrep, ripgrep } from '../dist/tools/grep-ripgrep.js'
import { globTool } from '../dist/tools/glob.js'

// Every stat through node:fs/promises is counted (the glob tool's own; tinyglobby stats only symbolic links).
const fsPromises = createRequire(import.meta.url)('node:fs/promises')
const realStat = fsPromises.stat
let stats = 0
fsPromises.stat = (...args) => {
  stats++
  return realStat(...args)
}
syncBuiltinESMExports()

const FILES = Number(process.env.SEARCH_BENCH_FILES ?? 100_000)
const GOAL = 3
const root = join(tmpdir(), `rein-search-bench-${FILES}`)
if (!existsSync(join(root, '.complete'))) {
  const started = performance.now()
  const dirs = Math.max(1, Math.round(FILES / 100))
  for (let d = 0; d < dirs; d++) {
    const dir = join(root, `pkg${d}`, 'src')
    mkdirSync(dir, { recursive: true })
    for (let f = 0; f < FILES / dirs; f++) {
      const body = `// file ${d}/${f}\nexport function f${f}(x: number): number {\n  return x + ${f}\n}\n`.repeat(8) + (f === 7 ? 'const needle = 1\n' : '')
      writeFileSync(join(dir, `m${f}.${f % 2 ? 'ts' : 'js'}`), body)
    }
  }
  writeFileSync(join(root, '.complete'), '')
  console.log(`built ${FILES} files in ${root} in ${((performance.now() - started) / 1000).toFixed(1)} s (kept for later runs)`)
}

const ROUNDS = Number(process.env.SEARCH_BENCH_ROUNDS ?? 3)
const searches = [
  { name: 'the whole walk', pattern: '// file 99/', results: 100 },
  { name: 'cut at 250', pattern: 'needle', results: 250 },
]
const query = (pattern) => ({ pattern, cwd: root, target: root, mode: 'files_with_matches', ignoreCase: false, lineNumbers: true, before: 0, after: 0, maxLines: 250, signal: new AbortController().signal, env: process.env })
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const load = () => loadavg()[0].toFixed(1)
const timed = async (run) => {
  const start = performance.now()
  await run()
  return performance.now() - start
}
const expect = (engine, search) => (result) => {
  if (result.error || result.lines.length !== search.results) throw new Error(`${engine} gave ${result.error ?? `${result.lines.length} results`} for ${search.pattern}`)
}

const rg = findRipgrep()
const loadBefore = load()
let ratio
for (const search of searches) {
  const t = { builtin: [], cpu: [], rg: [], rgSorted: [] }
  for (let round = 0; round < ROUNDS; round++) {
    const cpu = process.cpuUsage()
    t.builtin.push(await timed(async () => expect('the built-in grep', search)(await builtinGrep(query(search.pattern)))))
    const used = process.cpuUsage(cpu)
    t.cpu.push((used.user + used.system) / 1000)
    if (!rg) continue
    t.rg.push(await timed(async () => expect('ripgrep', search)(await ripgrep(rg, query(search.pattern)))))
    t.rgSorted.push(await timed(() => spawnSync(rg, ['--no-config', '--no-require-git', '--hidden', '--glob', '!.git', '--sort', 'path', '-l', '-e', search.pattern, '--', '.'], { cwd: root })))
  }
  console.log(`built-in grep, ${FILES} files, ${search.name}: ${median(t.builtin).toFixed(0)} ms (${median(t.cpu).toFixed(0)} ms CPU)`)
  if (!rg) continue
  console.log(`ripgrep, ${search.name}: ${median(t.rg).toFixed(0)} ms (threads, sorted afterwards); with --sort path (one thread): ${median(t.rgSorted).toFixed(0)} ms`)
  const r = median(t.builtin.map((b, i) => b / t.rg[i]))
  console.log(`built-in / ripgrep, ${search.name}: ${r.toFixed(2)}× (median of ${ROUNDS} interleaved rounds)`)
  ratio ??= r
}
if (ratio !== undefined) console.log(`built-in / ripgrep, whole walk of ${FILES} files: ${ratio.toFixed(2)}× (goal ≤ ${GOAL}×: ${ratio <= GOAL ? 'met' : 'NOT met'}; load average ${loadBefore} → ${load()})`)
else console.log('ripgrep is not on PATH: no ratio')

const ctx = { cwd: root, state: { extra: new Map() }, signal: new AbortController().signal }
let matched = 0
const globTimes = []
stats = 0
for (let round = 0; round < ROUNDS; round++) {
  globTimes.push(
    await timed(async () => {
      const out = await globTool.run({ pattern: '**/*.ts' }, ctx)
      matched = out.meta.matched
    }),
  )
}
// One stat per run is the search root's (is it a directory?); any more would be matches dated.
const perRun = stats / ROUNDS - 1
console.log(`glob **/*.ts, ${matched} matches, first 200 shown: ${median(globTimes).toFixed(0)} ms, ${perRun} matches stated (goal: no stat of the rest: ${perRun === 0 ? 'met' : 'NOT met'})`)
