import { createServer, type Server } from 'node:http'
import { Counter, Gauge, Histogram, Registry } from 'prom-client'

/**
 * A worker's Prometheus metrics (`rein worker --metrics-port`), served as text at `/metrics`, and its health at
 * `/healthz` (200 while the worker takes tasks, 503 once it drains). Names follow Prometheus' conventions: counters end
 * `_total`, durations are seconds, cost is USD.
 */
export class WorkerMetrics {
  readonly registry = new Registry()
  readonly started = new Counter({ name: 'rein_tasks_started_total', help: 'Task attempts started.', registers: [this.registry] })
  readonly finished = new Counter({ name: 'rein_tasks_finished_total', help: 'Tasks finished, by status.', labelNames: ['status'], registers: [this.registry] })
  readonly running = new Gauge({ name: 'rein_tasks_running', help: 'Tasks running now.', registers: [this.registry] })
  readonly duration = new Histogram({
    name: 'rein_task_duration_seconds',
    help: 'Wall time of finished task attempts.',
    buckets: [1, 5, 15, 60, 300, 900, 3600],
    registers: [this.registry],
  })
  readonly tokens = new Counter({ name: 'rein_task_tokens_total', help: 'Tokens of finished tasks, by kind.', labelNames: ['kind'], registers: [this.registry] })
  readonly cost = new Counter({ name: 'rein_task_cost_usd_total', help: 'Cost of finished tasks, USD at catalog prices.', registers: [this.registry] })
  readonly dbErrors = new Counter({ name: 'rein_database_errors_total', help: 'Database calls that failed and were retried.', registers: [this.registry] })
  healthy = true

  /** Starts serving on 127.0.0.1 (or `host`); resolves to the port (0 picks a free one). */
  serve(port: number, host = '127.0.0.1'): Promise<{ port: number; close: () => Promise<void> }> {
    const server: Server = createServer((request, response) => {
      if (request.url === '/healthz') {
        response.writeHead(this.healthy ? 200 : 503, { 'content-type': 'text/plain' }).end(this.healthy ? 'ok\n' : 'draining\n')
        return
      }
      if (request.url !== '/metrics') {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('not found: try /metrics or /healthz\n')
        return
      }
      this.registry.metrics().then(
        (text) => response.writeHead(200, { 'content-type': this.registry.contentType }).end(text),
        (error: unknown) => response.writeHead(500).end(String(error)),
      )
    })
    return new Promise((resolve, reject) => {
      server.once('error', reject)
      // Never what keeps the process alive: the worker's own loop decides when it ends.
      server.unref()
      server.listen(port, host, () => {
        const address = server.address()
        resolve({
          port: typeof address === 'object' && address ? address.port : port,
          close: () => new Promise<void>((done) => server.close(() => done())),
        })
      })
    })
  }
}
