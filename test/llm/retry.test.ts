import { describe, expect, it } from 'vitest'
import { modelError } from '../../src/llm/describe.js'
import type { ModelErrorCode } from '../../src/llm/errors.js'
import { retryDelay } from '../../src/llm/retry.js'

const middle = (): number => 0.5

describe('the retry policy', () => {
  it('backs off from 0.5 s, doubling up to 10 s, for five retries and then gives up', () => {
    const error = modelError('server', { status: 500 })
    const delays = [0, 1, 2, 3, 4, 5].map((n) => retryDelay(error, n, middle))
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, null])
    expect(retryDelay(error, 4, () => 0.9999)).toBeLessThanOrEqual(10_000)
  })

  it('jitters each delay by a quarter either way, within the bounds', () => {
    const error = modelError('transport')
    expect(retryDelay(error, 2, () => 0)).toBe(1500)
    expect(retryDelay(error, 2, () => 0.9999)).toBe(2500)
    expect(retryDelay(error, 0, () => 0)).toBe(500)
  })

  it.each<ModelErrorCode>(['rate-limit', 'server', 'transport', 'timeout', 'empty-response'])('retries %s', (code) => {
    expect(retryDelay(modelError(code), 0, middle)).toBe(500)
  })

  it.each<ModelErrorCode>(['auth', 'quota', 'invalid-request', 'context-too-long', 'aborted'])('never retries %s', (code) => {
    expect(retryDelay(modelError(code), 0, middle)).toBeNull()
  })

  it('waits what Retry-After asks when it is within the cap, and the cap when it is beyond', () => {
    expect(retryDelay(modelError('rate-limit', { retryAfterMs: 3000 }), 0, middle)).toBe(3000)
    expect(retryDelay(modelError('rate-limit', { retryAfterMs: 0 }), 3, middle)).toBe(0)
    expect(retryDelay(modelError('rate-limit', { retryAfterMs: 60_000 }), 0, middle)).toBe(10_000)
    expect(retryDelay(modelError('rate-limit', { retryAfterMs: 3000 }), 5, middle)).toBeNull()
  })

  it('drives a retry loop on a fake clock to exactly the scheduled waits', async () => {
    let clock = 0
    const sleep = async (ms: number): Promise<void> => {
      clock += ms
    }
    const failures = [modelError('server', { status: 503 }), modelError('rate-limit', { retryAfterMs: 2000 }), modelError('timeout')]
    let attempts = 0
    for (;;) {
      const failure = failures[attempts++]
      if (!failure) break
      const delay = retryDelay(failure, attempts - 1, middle)
      if (delay === null) break
      await sleep(delay)
    }
    expect(attempts).toBe(4)
    expect(clock).toBe(500 + 2000 + 2000)
  })
})
