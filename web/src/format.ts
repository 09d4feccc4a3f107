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
