// @ts-nocheck Plain JavaScript run against dist/; the test that imports rewindKillLoop takes its inferred types (docs/testing.md).
// The rewind kill loop (docs/checkpoints.md, "After an interruption"): SIGKILLs `rein rewind`, `rein rewind --undo`
// and `rein -p` at many points, by timing and by waiting for a given git child to appear (sometimes with the whole
// process group, so git dies too and leaves its lock), then checks by content hash (every file's bytes and mode)
// that the workspace is as before the command, as after it, or one `rein rewind --undo` away from before.
// `node bench/rewind-kill.bench.mjs [rewinds] [undos] [prints]` (after `npm run build`) prints kills, states seen and
// recoveries; test/checkpoints/rewind-kill.test.ts runs a few of each through `rewindKillLoop`.
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { chmodSync, cpSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { CLI } from './run-print.mjs'
import { startMockModel } from '../dist/llm/mock/server.js'
import { gitProcessesOf } from '../dist/checkpoints/locks.js'
import { shadowRepository } from '../dist/checkpoints/retention-schedule.js'
import { isDamage, verifySession } from '../dist/session/verify.js'

/** The git children a kill waits for, per command: each is a phase of it (`cat-file --batch`: the files being written). */
const REWIND_PHASES = ['status', 'add', 'write-tree', 'diff-tree', 'check-ignore', 'commit-tree', 'update-ref', 'cat-file --batch', 'update-index']
const PRINT_PHASES = ['status', 'add', 'write-tree', 'commit-tree', 'update-ref', 'diff-tree']

/** Every file under `dir` as `path → mode digest` (symlinks by target): what "the same workspace" means here. */
export function fingerprint(dir, prefix = '', out = {}) {
  for (const entry of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name
    const full = join(dir, rel)
    const stat = lstatSync(full)
    if (stat.isSymbolicLink()) out[rel] = `link ${readlinkSync(full)}`
    else if (stat.isDirectory()) fingerprint(dir, rel, out)
    else out[rel] = `${(stat.mode & 0o7777).toString(8)} ${createHash('sha256').update(readFileSync(full)).digest('hex')}`
  }
  return out
}

function digest(dir) {
  const print = fingerprint(dir)
  return createHash('sha256')
    .update(JSON.stringify(Object.keys(print).sort().map((k) => [k, print[k]])))
    .digest('hex')
}

function run(args, { cwd, env, detached = false }) {
  const child = spawn(process.execPath, [CLI, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d) => (stdout += d))
  child.stderr.on('data', (d) => (stderr += d))
  const done = new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }))
  })
  return { child, done }
}

/** The command lines of `pid`'s children (every thread's), read from /proc. */
function childCommands(pid) {
  const found = []
  let tasks
  try {
    tasks = readdirSync(`/proc/${pid}/task`)
  } catch {
    return found
  }
  for (const task of tasks) {
    let children = ''
    try {
      children = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8')
    } catch {
      continue
    }
    for (const child of children.trim().split(/\s+/).filter(Boolean)) {
      try {
        found.push(readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' '))
      } catch {
        // Ended meanwhile.
      }
    }
  }
  return found
}

/** Resolves when `pid` has a git child whose command line holds `phase`, or after `timeoutMs` (false then). */
async function gitChild(pid, phase, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (childCommands(pid).some((c) => /(^|\/)git$/.test(c.split(' ')[0]) && c.includes(` ${phase}`))) return true
    await new Promise((r) => setImmediate(r))
  }
  return false
}

/** The session's header and events, read from its file (complete lines only: a torn last line is dropped on open). */
function sessionFile(home, id) {
  for (const dir of readdirSync(join(home, 'sessions'))) {
    const file = join(home, 'sessions', dir, `${id}.jsonl`)
    let text
    try {
      text = readFileSync(file, 'utf8')
    } catch {
      continue
    }
    const lines = text.slice(0, text.lastIndexOf('\n') + 1).split('\n').filter(Boolean)
    return { header: JSON.parse(lines[0]), events: lines.slice(1).map((l) => JSON.parse(l)) }
  }
  return { header: undefined, events: [] }
}

function events(home, id) {
  return sessionFile(home, id).events
}

/** Whether the log's latest undo point has no rewind or undo logged after it (an interrupted restore). */
function openPoint(home, id) {
  const log = events(home, id)
  let point = -1
  let later = -1
  log.forEach((e, seq) => {
    if (e.type === 'checkpoint/undo-point') point = seq
    if (e.type === 'checkpoint/rewind' || e.type === 'checkpoint/rewind-undone') later = seq
  })
  return point >= 0 && later < point
}

/** The git lock files in the shadow repository (a kill of the whole process group can leave git's). */
function locks(gitDir, dir = gitDir, out = []) {
  let entries
  try {
    entries = readdirSync(dir, { withFileTypes: true })
  } catch {
    return out
  }
  for (const entry of entries) {
    if (entry.isDirectory() && entry.name !== 'objects') locks(gitDir, join(dir, entry.name), out)
    else if (entry.name.endsWith('.lock')) out.push(join(dir, entry.name).slice(gitDir.length + 1))
  }
  return out
}

/** Waits until no git process works on the shadow repository (the on-open gc runs detached). */
async function gitQuiet(gitDir) {
  for (let i = 0; i < 400; i++) {
    if (!(gitProcessesOf(gitDir) ?? []).length) return
    await new Promise((r) => setTimeout(r, 25))
  }
}

/** One bash step, then an answer; the call id is the mark's, so a resumed session's calls never repeat an id. */
function script(command, mark) {
  return [{ toolCalls: [{ id: `call_${mark}`, name: 'bash', arguments: { command } }] }, { text: 'done', repeat: true }]
}

/** The workspace before turn 1: `files` files in ten directories, a 0600 `.env`, a 0700 script and a settings file. */
function seed(cwd, files) {
  for (let i = 0; i < files; i++) {
    const dir = join(cwd, `d${i % 10}`)
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, `f${i}.txt`), `file ${i}\n`.repeat(400))
  }
  writeFileSync(join(cwd, '.env'), 'TOKEN=secret\n')
  chmodSync(join(cwd, '.env'), 0o600)
  mkdirSync(join(cwd, 'bin'))
  writeFileSync(join(cwd, 'bin', 'run.sh'), '#!/bin/sh\necho run\n')
  chmodSync(join(cwd, 'bin', 'run.sh'), 0o700)
}

/** What the agent does in turn 1 (and turn 2 of the print kills): edits, deletions, new files, a mode kept. */
function agentCommand(files, mark) {
  const edits = []
  for (let i = 0; i < files; i++) {
    const path = `d${i % 10}/f${i}.txt`
    if (i % 4 === 0) edits.push(`rm ${path}`)
    else if (i % 4 === 1) edits.push(`echo ${mark} >> ${path}`)
  }
  edits.push(`mkdir -p gen${mark}`, `for i in $(seq 1 ${Math.ceil(files / 4)}); do echo ${mark} $i > gen${mark}/n$i.txt; done`)
  edits.push(`echo MORE=${mark} >> .env`, `echo "echo ${mark}" >> bin/run.sh`)
  return edits.join(' && ')
}

/** The user's own edits after turn 1: some of the agent's files, some untouched ones, new files of their own. */
function userEdits(cwd, files) {
  for (let i = 0; i < files; i += 7) {
    const path = join(cwd, `d${i % 10}`, `f${i}.txt`)
    try {
      writeFileSync(path, `user edit ${i}\n`)
    } catch {
      // A file the agent removed: the user brings it back with their own text.
      writeFileSync(path, `user made ${i}\n`)
    }
  }
  mkdirSync(join(cwd, 'mine'))
  for (let i = 0; i < 10; i++) writeFileSync(join(cwd, 'mine', `u${i}.txt`), `mine ${i}\n`)
}

/**
 * Runs the loop; returns `{ kills, states, recoveries, problems, … }`. `rewinds`, `undos` and `prints` are how many
 * kills of each command; half of each wait for a git child (a phase), half are timed.
 */
export async function rewindKillLoop({ rewinds = 8, undos = 3, prints = 3, files = 300, random = Math.random, windowMs = 1500 } = {}) {
  const figures = {
    kills: 0,
    states: { untouched: 0, restored: 0, partial: 0 },
    /** `rein -p` kills: whether the killed turn had changed files yet. */
    printStates: { unchanged: 0, changed: 0 },
    recoveries: 0,
    /** @type {Record<string, number>} */
    byPhase: {},
    /** Kills that left a git lock behind, and how many of those a later command removed with its notice. */
    locksLeft: 0,
    locksHealed: 0,
    /** @type {string[]} */
    problems: [],
  }
  const base = mkdtempSync(join(tmpdir(), 'rein-rewind-kill-'))
  const cwd = join(base, 'project')
  const home = join(base, 'home')
  const saved = (name) => ({ cwd: join(base, `${name}-project`), home: join(base, `${name}-home`) })
  const save = (name) => {
    const to = saved(name)
    rmSync(to.cwd, { recursive: true, force: true })
    rmSync(to.home, { recursive: true, force: true })
    cpSync(cwd, to.cwd, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true })
    cpSync(home, to.home, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true })
  }
  const load = (name) => {
    const from = saved(name)
    rmSync(cwd, { recursive: true, force: true })
    rmSync(home, { recursive: true, force: true })
    cpSync(from.cwd, cwd, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true })
    cpSync(from.home, home, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true })
  }
  mkdirSync(cwd, { recursive: true })
  mkdirSync(home, { recursive: true })
  seed(cwd, files)
  const gitDir = shadowRepository(home, cwd)
  let mock = await startMockModel({ script: script(agentCommand(files, 'a'), 'a') })
  const env = () => ({ ...process.env, DEEPSEEK_BASE_URL: mock.url, DEEPSEEK_API_KEY: 'rewind-kill', REIN_HOME: home, HOME: home, NO_COLOR: '1' })
  try {
    const first = await run(['-p', 'change the files', '--permission-mode', 'bypass', '--output-format', 'json'], { cwd, env: env() }).done
    if (first.code !== 0) throw new Error(`rein -p exited ${first.code}: ${first.stderr}`)
    const id = JSON.parse(first.stdout).session_id
    // "Allow always" writes this while a session runs: no rewind may remove it.
    mkdirSync(join(cwd, '.rein'), { recursive: true })
    writeFileSync(join(cwd, '.rein', 'settings.local.json'), '{"permissions":{"allow":["Bash(ls)"]}}\n')
    userEdits(cwd, files)
    await gitQuiet(gitDir)
    save('turn1')
    const before = digest(cwd)

    const rewindArgs = ['rewind', id, '--to', '1', '--code', '--overwrite']
    const full = await run(rewindArgs, { cwd, env: env() }).done
    if (full.code !== 0) throw new Error(`the rewind exited ${full.code}: ${full.stderr}`)
    const target = digest(cwd)
    if (target === before) throw new Error('the rewind changed nothing')
    if (!readFileSync(join(cwd, '.rein', 'settings.local.json'), 'utf8').includes('Bash(ls)')) figures.problems.push('the rewind touched .rein/settings.local.json')
    if ((lstatSync(join(cwd, '.env')).mode & 0o777) !== 0o600) figures.problems.push('the rewind did not keep .env 0600')
    save('rewound')

    const kill = async (label, args, phases, i) => {
      const byPhase = i % 2 === 0
      const phase = byPhase ? phases[Math.floor(random() * phases.length)] : undefined
      const group = random() < 0.5
      const { child, done } = run(args, { cwd, env: env(), detached: true })
      if (phase) {
        const seen = await gitChild(child.pid, phase)
        if (seen) await new Promise((r) => setTimeout(r, Math.floor(random() * 6)))
      } else {
        await new Promise((r) => setTimeout(r, 150 + Math.floor(random() * windowMs)))
      }
      try {
        process.kill(group ? -child.pid : child.pid, 'SIGKILL')
      } catch {
        // Ended already: a kill after the end is a state too ("as after it").
      }
      await done
      // Git's children die with the group; one still finishing (the parent alone was killed) lets go of its lock.
      await gitQuiet(gitDir)
      if (locks(gitDir).length) figures.locksLeft++
      figures.kills++
      const key = `${label} ${phase ?? 'timed'}`
      figures.byPhase[key] = (figures.byPhase[key] ?? 0) + 1
    }
    const stateOf = (now, untouched, restored) => (now === untouched ? 'untouched' : now === restored ? 'restored' : 'partial')
    // What `rein sessions verify` checks of the log's structure, in this process (a CLI start per kill costs more).
    // A lock a kill left must be gone once a command has used the checkpoints again (a recovery that found nothing
    // to undo never opened them, so a dry run does).
    const verify = async (where) => {
      if (locks(gitDir).length) {
        const dry = await run(['rewind', id, '--to', '1', '--code', '--dry-run'], { cwd, env: env() }).done
        if (/Removed a stale lock/.test(dry.stdout + dry.stderr)) figures.locksHealed++
      }
      const left = locks(gitDir)
      if (left.length) figures.problems.push(`${where}: git locks still there after a later command: ${left.join(', ')}`)
      const damage = (await verifySession(sessionFile(home, id))).filter(isDamage)
      if (damage.length) figures.problems.push(`${where}: the log does not verify: ${damage.map((p) => `seq ${p.seq}: ${p.message}`).join('; ')}`)
    }
    const undo = async () => {
      const r = await run(['rewind', id, '--undo', '--overwrite'], { cwd, env: env() }).done
      if (/Removed a stale lock/.test(r.stdout + r.stderr)) figures.locksHealed++
      return r
    }

    for (let i = 0; i < rewinds; i++) {
      load('turn1')
      await kill('rewind', rewindArgs, REWIND_PHASES, i)
      const state = stateOf(digest(cwd), before, target)
      figures.states[state]++
      const r = await undo()
      const nothing = r.code === 1 && r.stderr.includes('There is no rewind of the code in this session to undo.')
      if (r.code !== 0 && !nothing) figures.problems.push(`rewind kill ${i} (${state}): the undo exited ${r.code}: ${r.stderr.trim()}`)
      else if (digest(cwd) !== before) figures.problems.push(`rewind kill ${i} (${state}): after --undo the workspace is not as before the rewind`)
      else figures.recoveries++
      await verify(`rewind kill ${i}`)
    }

    for (let i = 0; i < undos; i++) {
      load('rewound')
      await kill('undo', ['rewind', id, '--undo', '--overwrite'], REWIND_PHASES, i)
      const state = stateOf(digest(cwd), target, before)
      figures.states[state]++
      if (openPoint(home, id)) {
        // Interrupted after its undo point: one --undo goes back to the state before this undo (as the rewind left it).
        const r = await undo()
        if (r.code !== 0) figures.problems.push(`undo kill ${i} (${state}): the second undo exited ${r.code}: ${r.stderr.trim()}`)
        else if (digest(cwd) !== target) figures.problems.push(`undo kill ${i} (${state}): after --undo the workspace is not as before the interrupted undo`)
        else figures.recoveries++
      } else if (state === 'partial') {
        figures.problems.push(`undo kill ${i}: the workspace is half undone and the log has no open undo point`)
      } else {
        figures.recoveries++
      }
      await verify(`undo kill ${i}`)
    }

    for (let i = 0; i < prints; i++) {
      load('turn1')
      const untouched = digest(cwd)
      await mock.close()
      mock = await startMockModel({ script: script(agentCommand(files, `p${i}`), `p${i}`) })
      await kill('print', ['-p', 'change them again', '--resume', id, '--permission-mode', 'bypass'], PRINT_PHASES, i)
      const killed = digest(cwd)
      // The interrupted turn is turn 2: going back to its start must give the workspace before it, exactly.
      const r = await run(['rewind', id, '--to', '2', '--code', '--overwrite', '--json'], { cwd, env: env() }).done
      if (/Removed a stale lock/.test(r.stdout + r.stderr)) figures.locksHealed++
      let outcome
      try {
        outcome = JSON.parse(r.stdout).outcome
      } catch {
        outcome = undefined
      }
      const now = digest(cwd)
      figures.printStates[killed === untouched ? 'unchanged' : 'changed']++
      if (outcome === 'rewound') {
        if (now !== untouched) figures.problems.push(`print kill ${i}: the rewind to turn 2 did not give the workspace before it`)
        else {
          const u = await undo()
          if (u.code !== 0 || digest(cwd) !== killed) figures.problems.push(`print kill ${i}: undoing the rewind did not give back the killed turn's files (${u.code}: ${u.stderr.trim()})`)
          else figures.recoveries++
        }
      } else if (killed !== untouched) {
        figures.problems.push(`print kill ${i}: files changed but no snapshot of turn 2 can restore them (${r.code}: ${(r.stdout + r.stderr).trim()})`)
      } else {
        figures.recoveries++
      }
      await verify(`print kill ${i}`)
    }
  } finally {
    await mock.close()
    rmSync(base, { recursive: true, force: true })
  }
  return figures
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [rewinds = 40, undos = 10, prints = 10] = process.argv.slice(2).map(Number)
  const start = performance.now()
  const f = await rewindKillLoop({ rewinds, undos, prints })
  console.log(`rewind kill loop: ${f.kills} kills in ${((performance.now() - start) / 1000).toFixed(0)} s`)
  console.log(`states seen after killed rewinds and undos: ${f.states.untouched} untouched, ${f.states.restored} fully restored, ${f.states.partial} part way`)
  console.log(`killed rein -p turns: ${f.printStates.unchanged} before any file changed, ${f.printStates.changed} after`)
  console.log(`recoveries: ${f.recoveries} of ${f.kills} (untouched, restored, or back to before with one rein rewind --undo)`)
  console.log(`kills that left a git lock: ${f.locksLeft}, stale locks removed with a notice by the recovery: ${f.locksHealed}`)
  console.log(`kills by phase: ${Object.entries(f.byPhase).map(([k, v]) => `${k} ${v}`).join(', ')}`)
  for (const p of f.problems) console.log(`PROBLEM ${p}`)
  process.exit(f.problems.length ? 1 : 0)
}
