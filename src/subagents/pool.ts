/** At most `width` holders at once; the rest wait in arrival order. An aborted wait rejects and takes no slot. */
export class Pool {
  private active = 0
  private readonly waiting: (() => void)[] = []

  constructor(private readonly width: number) {}

  async acquire(signal: AbortSignal): Promise<() => void> {
    if (this.active >= this.width) {
      await new Promise<void>((resolve, reject) => {
        const wake = (): void => {
          signal.removeEventListener('abort', onAbort)
          resolve()
        }
        const onAbort = (): void => {
          this.waiting.splice(this.waiting.indexOf(wake), 1)
          reject(signal.reason)
        }
        this.waiting.push(wake)
        signal.addEventListener('abort', onAbort, { once: true })
      })
    }
    this.active++
    let released = false
    return () => {
      if (released) return
      released = true
      this.active--
      this.waiting.shift()?.()
    }
  }
}
