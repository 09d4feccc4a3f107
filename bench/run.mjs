// Runs every benchmark in bench/ (files named *.bench.mjs), each in its own process so peak RSS is its own, and ends
// with the lines that name a goal or target, bench by bench, so each goal is printed beside its figure in one place.
import { readdirSync } from 'node:fs'
import { spawn } from 'node:child_process'
import { loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const only = process.argv[2]
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.mjs') && (!only || f.includes(only)))
  .sort()
const GOAL = /\b(goal|target)\b/i

/** Runs one bench with its output passed through; resolves its exit code and the lines that name a goal. */
function run(file) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--expose-gc', join(here, file)], { stdio: ['inherit', 'pipe', 'inherit'] })
    const goals = []
    let rest = ''
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk)
      const lines = (rest + chunk.toString()).split('\n')
      rest = lines.pop() ?? ''
      goals.push(...lines.filter((line) => GOAL.test(line)))
    })
    child.on('close', (code) => {
      if (GOAL.test(rest)) goals.push(rest)
      resolve({ code, goals })
    })
  })
}

let failed = 0
const summary = []
for (const file of files) {
  console.log(`\n== ${file}  (load average ${loadavg()[0].toFixed(1)})`)
  const { code, goals } = await run(file)
  if (code !== 0) failed++
  if (goals.length) summary.push(`${file}:`, ...goals.map((line) => `  ${line.trim()}`))
}
console.log('\n== goals beside their figures')
console.log(summary.join('\n'))
process.exit(failed ? 1 : 0)
