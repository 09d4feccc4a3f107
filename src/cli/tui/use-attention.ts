import { useStdout } from 'ink'
import { useEffect, useState } from 'react'
import type { AgentApi, PermissionRequest } from '../../agent/types.js'
import { AttentionNotifier, resolveChannel, type NotifyChannel } from './notify.js'
import { terminalState } from './terminal-reports.js'

/**
 * Notifies (bell, OSC 9 or OSC 777: notify.ts) when a long turn ends or a question opens in one, while the terminal
 * is not focused. `ask` is the question on screen; a new one notifies once.
 */
export function useAttention(agent: AgentApi, ask: PermissionRequest | undefined, channel: NotifyChannel = 'auto'): void {
  const { stdout } = useStdout()
  const [notifier] = useState(
    () =>
      new AttentionNotifier({
        channel: resolveChannel(channel, process.env),
        write: (bytes) => void stdout.write(bytes),
        focused: () => terminalState().focused,
      }),
  )
  useEffect(() => agent.subscribe((live) => live.type === 'event' && notifier.event(live.event)), [agent, notifier])
  useEffect(() => {
    if (!ask) return
    notifier.asked(ask.call.name === 'exit_plan_mode' ? 'A plan waits for review.' : `Permission needed: ${ask.call.name}.`)
  }, [ask, notifier])
}
