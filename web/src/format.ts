export function usd(value: number): string {
  return value === 0 ? '$0' : value < 0.01 ? `$${value.toPrecision(2)}` : `$${value.toFixed(2)}`
}

export function percent(share: number | undefined): string {
  return share === undefined ? '–' : `${Math.round(share * 100)}%`
}

export function when(ms: number): string {
  return new Date(ms).toLocaleString()
}

export function grouped(n: number): string {
  return n.toLocaleString('en-US')
}

/** A short time for a narrow column: the time of day when `ms` is today, else the date. */
export function whenShort(ms: number, now = Date.now()): string {
  const d = new Date(ms)
  const today = new Date(now).toDateString() === d.toDateString()
  return today ? d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) : d.toLocaleDateString([], { month: 'short', day: 'numeric', year: '2-digit' })
}

/** A project's name as the sidebar heads its group: the directory's last part. */
export function projectName(cwd: string): string {
  return cwd.replace(/[\\/]+$/, '').split(/[\\/]/).pop() || cwd
}
