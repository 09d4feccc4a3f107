// Built-in grep against ripgrep, and glob, on a 100K-file tree (SEARCH_BENCH_FILES sets the size). The tree is built
// once in TMPDIR (rein-search-bench-<files>, kept and reused by later runs; delete it to rebuild): 1,000 directories
// of small source-like files, half of them .ts. Prints the median of 3 runs of each search and the ratios.
// Goals (issue 36): the built-in grep at most 3× ripgrep; glob returns the first 200 of 50K matches without statting
// the rest. Needs the build and, for the ratio, ripgrep on PATH.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { builtinGrep } from '../dist/tools/grep-builtin.js'
import { findRipgrep, ripgrep } from '../dist/tools/grep-ripgrep.js'
import { globTool } from '../dist/tools/glob.js'

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

const query = { pattern: 'needle', cwd: root, target: root, mode: 'files_with_matches', ignoreCase: false, lineNumbers: true, before: 0, after: 0, maxLines: 250, signal: new AbortController().signal, env: process.env }
const median = async (run) => {
  const times = []
  for (let i = 0; i < 3; i++) {
    const start = performance.now()
    await run()
    times.push(performance.now() - start)
  }
  return times.sort((a, b) => a - b)[1]
}

const rg = findRipgrep()
const builtin = await median(async () => {
  const result = await builtinGrep(query)
  if (result.error || result.lines.length === 0) throw new Error(`the built-in grep found nothing: ${result.error ?? ''}`)
})
console.log(`built-in grep, ${FILES} files: ${builtin.toFixed(0)} ms`)
if (rg) {
  const rgMs = await median(async () => {
    const result = await ripgrep(rg, query)
    if (result.error || result.lines.length === 0) throw new Error(`ripgrep found nothing: ${result.error ?? ''}`)
  })
  const ratio = builtin / rgMs
  console.log(`ripgrep (threads, sorted afterwards), ${FILES} files: ${rgMs.toFixed(0)} ms`)
  console.log(`built-in / ripgrep: ${ratio.toFixed(2)}× (goal ≤ ${GOAL}×: ${ratio <= GOAL ? 'met' : 'NOT met'})`)
} else console.log('ripgrep is not on PATH: no ratio')

const ctx = { cwd: root, state: { extra: new Map() }, signal: new AbortController().signal }
let matched = 0
const globMs = await median(async () => {
  const out = await globTool.run({ pattern: '**/*.ts' }, ctx)
  matched = out.meta.matched
})
console.log(`glob **/*.ts, ${matched} matches, first 200 shown: ${globMs.toFixed(0)} ms (goal: no stat of the rest)`)
