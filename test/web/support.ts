import type { ChildProcessWithoutNullStreams } from 'node:child_process'
import { request } from 'node:http'
import { createInterface } from 'node:readline'
import { startMockModel, type MockModel, type MockResponse } from '../support/mock-model.js'
import { cliEnv, sandbox, spawnCli } from '../support/cli.js'

/** A running `rein web` (the built CLI) against the mock model, in a sandbox workspace and REIN_HOME. */
export interface WebRun {
  box: { root: string; cwd: string; home: string }
  mock: MockModel
  child: ChildProcessWithoutNullStreams
  /** The address printed, with `#token=…`. */
  address: string
  origin: string
  token: string
  stderr: () => string
  stop(): Promise<number | null>
}

export async function startWeb(options: { script?: MockResponse[]; args?: string[]; box?: WebRun['box'] } = {}): Promise<WebRun> {
  const box = options.box ?? sandbox()
  const mock = await startMockModel({ script: options.script ?? [] })
  const child = spawnCli(['web', '--no-open', '--port', '0', ...(options.args ?? [])], { cwd: box.cwd, env: cliEnv({ url: mock.url, home: box.home }) })
  let stderr = ''
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  const address = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`rein web printed no address; stderr: ${stderr}`)), 30_000)
    createInterface({ input: child.stdout }).once('line', (line) => {
      clearTimeout(timer)
      resolve(line.trim())
    })
    child.once('exit', (code) => reject(new Error(`rein web exited ${code}; stderr: ${stderr}`)))
  })
  const [origin, token] = address.split('/#token=')
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return {
    box,
    mock,
    child,
    address,
    origin,
    token,
    stderr: () => stderr,
    stop: async () => {
      child.kill('SIGTERM')
      const code = await exited
      await mock.close()
      return code
    },
  }
}

export interface RawResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
  json: () => { error?: string } & Record<string, unknown>
}

/** One HTTP request with exactly the headers given (fetch would not let a test forge `Host`). */
export function raw(
  origin: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawResponse> {
  const url = new URL(path, origin)
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method: options.method ?? 'GET', headers: { host: url.host, ...options.headers } },
      (res) => {
        let body = ''
        res.on('data', (d: Buffer) => (body += d.toString()))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) as { error?: string } }))
      },
    )
    req.on('error', reject)
    if (options.body !== undefined) req.write(options.body)
    req.end()
  })
}

/** The headers of an authenticated request from the server's own page. */
export function trusted(run: WebRun, extra: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${run.token}`, origin: run.origin, 'content-type': 'application/json', ...extra }
}
