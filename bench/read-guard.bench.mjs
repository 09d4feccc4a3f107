// What the read guard costs: (1) the built-in grep over a 5,000-file tree, without a guard and with one (a Read deny
// rule and Rein's home judged for every file); (2) creating the permission policy when a Read deny rule's tree holds
// 4,096 files, whose inodes are collected at load. Medians of RUNS runs. Needs the build (`npm run build`). Temp
// directories only.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createPermissionPolicy } from '../dist/permissions/policy.js'
import { builtinGrep } from '../dist/tools/grep-builtin.js'
import { readGuardOf } from '../dist/permissions/read-guard.js'
import { createToolState } from '../dist/tools/registry.js'

const RUNS = 5
const FILES = 5000
const DENIED_FILES = 4096

const base = realpathSync(mkdtempSync(join(tmpdir(), 'rein-read-guard-bench-')))
const cwd = join(base, 'repo')
const home = join(base, 'home')
for (let d = 0; d < FILES / 50; d++) {
  mkdirSync(join(cwd, `d${d}`), { recursive: true })
  for (let f = 0; f < 50; f++) writeFileSync(join(cwd, `d${d}`, `f${f}.ts`), `export const v${f} = ${f}\n`.repeat(20))
}
mkdirSync(join(home, '.secrets'), { recursive: true })
for (let f = 0; f < DENIED_FILES; f++) writeFileSync(join(home, '.secrets', `k${f}`), 'x\n')

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const time = async (fn) => {
  const t = performance.now()
  await fn()
  return performance.now() - t
}
const policy = () =>
  createPermissionPolicy({ cwd, settings: { permissions: { deny: ['Read(~/.secrets/**)'] } }, getMode: () => 'default', home, reinHome: join(home, '.rein') })
const query = (refuses) => ({
  pattern: 'v4[0-9]', cwd, target: cwd, mode: 'count', ignoreCase: false, lineNumbers: true, before: 0, after: 0,
  maxLines: 100000, signal: new AbortController().signal, refuses,
})

try {
  const state = createToolState({ spillDir: join(base, 'spill') })
  policy().guardTools(state)
  const guard = readGuardOf(state)
  const plain = []
  const guarded = []
  const loads = []
  for (let i = 0; i < RUNS; i++) {
    plain.push(await time(() => builtinGrep(query(undefined))))
    guarded.push(await time(() => builtinGrep(query(guard.refuses))))
    loads.push(await time(() => policy()))
  }
  const p = median(plain)
  const g = median(guarded)
  console.log(`built-in grep, ${FILES} files, no guard      ${p.toFixed(1).padStart(8)} ms`)
  console.log(`built-in grep, ${FILES} files, with guard    ${g.toFixed(1).padStart(8)} ms  (+${(((g - p) / p) * 100).toFixed(0)}%)`)
  console.log(`policy load, ${DENIED_FILES} files under a deny rule ${median(loads).toFixed(1).padStart(8)} ms`)
} finally {
  rmSync(base, { recursive: true, force: true })
}
