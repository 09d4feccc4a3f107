// 200 SIGKILLs at random points of a multi-step session with slow tools: every log must load, resume to an answer
// and verify, with no durable event lost. Prints the figures; exits 1 on any problem.
import { killLoop } from './kill-loop.mjs'

const kills = Number(process.env.REIN_BENCH_KILLS ?? 200)
const started = performance.now()
const f = await killLoop({ kills })
const seconds = ((performance.now() - started) / 1000).toFixed(1)
console.log(`kills ${f.kills}  logs ${f.logs}  resumed ${f.resumed}  verified ${f.verified}  events lost ${f.eventsLost}  (${seconds} s)`)
for (const problem of f.problems) console.log(`  problem: ${problem}`)
process.exit(f.problems.length ? 1 : 0)
