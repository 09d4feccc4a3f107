import { execFileSync } from 'node:child_process'

/** Live (non-zombie) processes whose command line contains `marker`, from `ps`. */
export function liveProcesses(marker: string): { pid: number; args: string }[] {
  const out = execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' })
  return out
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\S+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .filter((m) => !m[2].startsWith('Z') && m[3].includes(marker) && !m[3].startsWith('ps '))
    .map((m) => ({ pid: Number(m[1]), args: m[3] }))
}

/** Kills, by pid, the processes a test itself started and left behind on purpose. */
export function killStrays(marker: string): void {
  for (const p of liveProcesses(marker)) {
    try {
      process.kill(p.pid, 'SIGKILL')
    } catch {
      // Already gone.
    }
  }
}
