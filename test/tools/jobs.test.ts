import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { bashTool } from '../../src/tools/bash.js'
import { jobKillTool, jobOutputTool } from '../../src/tools/jobs.js'
import { disposeToolState } from '../../src/tools/registry.js'
import { liveProcesses } from './processes.js'
import { makeWorkspace, textOf, type Workspace } from './tool-context.js'

let ws: Workspace
beforeEach(() => {
  ws = makeWorkspace()
})
afterEach(async () => {
  await ws.dispose()
})

const jobId = (text: string) => /Started (job\d+)/.exec(text)![1]

describe('background jobs', () => {
  it('starts a job, and job_output waits for it and shows its output and exit code', async () => {
    const started = textOf(await ws.run(bashTool, { command: 'echo one; sleep 0.2; echo two; exit 4', run_in_background: true }))
    const id = jobId(started)
    const out = textOf(await ws.run(jobOutputTool, { id, wait: 10_000 }))
    expect(out).toBe(`one\ntwo\n[${id} exited; exit code: 4]`)
  })

  it('shows only new output on each call', async () => {
    const id = jobId(textOf(await ws.run(bashTool, { command: 'echo first; read -t 30 x < /dev/zero; sleep 30', run_in_background: true })))
    let first = ''
    while (!first.includes('first')) first = textOf(await ws.run(jobOutputTool, { id, wait: 50 }))
    expect(first).toMatch(/^first\n\[job\d+ is running\]$/)
    expect(textOf(await ws.run(jobOutputTool, { id }))).toMatch(/^\(no new output\)\n\[job\d+ is running\]$/)
    await ws.run(jobKillTool, { id })
  })

  it('job_kill stops the job and everything it started', async () => {
    const id = jobId(textOf(await ws.run(bashTool, { command: 'sleep 51.01 & sleep 51.02', run_in_background: true })))
    while (liveProcesses('sleep 51.0').length < 2) await new Promise((r) => setTimeout(r, 20))
    const out = textOf(await ws.run(jobKillTool, { id }))
    expect(out).toMatch(new RegExp(`^Killed ${id}; exit code: \\d+\\.$`))
    expect(liveProcesses('sleep 51.0')).toEqual([])
  })

  it('disposing the tool state kills running jobs', async () => {
    await ws.run(bashTool, { command: 'sleep 52.01', run_in_background: true })
    while (liveProcesses('sleep 52.01').length < 1) await new Promise((r) => setTimeout(r, 20))
    await disposeToolState(ws.state)
    expect(liveProcesses('sleep 52.01')).toEqual([])
  })

  it('names the known jobs when asked about an unknown one', async () => {
    const out = await ws.run(jobOutputTool, { id: 'job99' })
    expect(out.isError).toBe(true)
    expect(textOf(out)).toMatch(/no job job99 \(no jobs have been started\)/)
  })
})
