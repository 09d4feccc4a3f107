import { Text } from 'ink'
import { useEffect, useRef, useState } from 'react'
import type { AgentApi } from '../../agent/types.js'
import { formatDuration, plainLine } from '../../frontend/render/index.js'
import { runShellCommand, shellCommandOf } from '../../frontend/shell-command.js'

export interface ShellRunning {
  command: string
  since: number
}

/**
 * The terminal UI's side of `!cmd` (src/frontend/shell-command.ts runs it and logs the output): which command runs,
 * a refusal said as one warning line, and Ctrl+C stopping it (Esc stops it as it stops a turn: `agent.cancel`).
 */
export function useShellRun(agent: AgentApi, warn: (text: string) => void, refresh: () => void) {
  const [running, setRunning] = useState<ShellRunning | undefined>()
  const runningRef = useRef(running)
  runningRef.current = running
  const run = (prompt: string) => {
    const command = shellCommandOf(prompt) ?? ''
    const started: ShellRunning = { command, since: Date.now() }
    if (!agent.busy && command) setRunning(started)
    void runShellCommand(agent, command)
      .then((outcome) => {
        if (outcome.kind === 'refused') warn(outcome.message)
      })
      .finally(() => {
        setRunning((now) => (now === started ? undefined : now))
        refresh()
      })
  }
  /** Ctrl+C on an empty editor: stops a running command instead of arming exit. */
  const interrupt = (): boolean => {
    if (!runningRef.current) return false
    agent.cancel()
    return true
  }
  return { running, run, interrupt }
}

/** The line under the conversation while a `!` command runs. */
export function ShellRunLine({ running }: { running: ShellRunning | undefined }) {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    if (!running) return
    const timer = setInterval(() => setNow(Date.now()), 500)
    return () => clearInterval(timer)
  }, [running])
  if (!running) return null
  return (
    <Text>
      <Text color="magenta">⏺ ! </Text>
      <Text>{plainLine(running.command, 80)}</Text>
      <Text dimColor> … {formatDuration(Math.max(0, now - running.since))} · Esc or Ctrl+C stops it</Text>
    </Text>
  )
}
