import { useEffect, useState } from 'preact/hooks'
import { get } from './api'
import './panels.css'

interface Server {
  name: string
  state: string
  transport: string
  origin?: string
  tools: string[]
  error?: string
}

/**
 * The session's MCP servers (`GET /api/sessions/:id/mcp`), read-only: each server's state, the sentence it failed
 * with, its transport and where it was configured, and the tools the model sees from it.
 */
export function McpPanel({ sessionId, hosted }: { sessionId: string; hosted: boolean }) {
  const [servers, setServers] = useState<{ hosted: boolean; servers: Server[] }>()
  const [error, setError] = useState('')
  const load = (): void => {
    setError('')
    get<{ hosted: boolean; servers: Server[] }>(`/api/sessions/${encodeURIComponent(sessionId)}/mcp`).then(setServers, (e: Error) => setError(e.message))
  }
  useEffect(load, [sessionId, hosted])
  if (error) return <p class="error" role="alert">{error}</p>
  if (!servers) return <p class="muted">Reading the MCP servers…</p>
  if (!servers.hosted) return <p class="muted">This server does not hold the session yet; its MCP servers start with its first prompt or setting.</p>
  return (
    <div>
      <button type="button" class="link" onClick={load}>
        Refresh
      </button>
      {!servers.servers.length && <p class="muted">No MCP server is configured for this session (settings, .mcp.json).</p>}
      <ul>
        {servers.servers.map((s) => (
          <li key={s.name}>
            <div class="file-row">
              <strong>{s.name}</strong> <span class={`mcp-state ${s.state}`}>{s.state}</span>
              <span class="muted">
                {s.transport}
                {s.origin ? ` · ${s.origin}` : ''}
              </span>
            </div>
            {s.error && <p class="error">{s.error}</p>}
            {s.tools.length > 0 && (
              <p>
                {s.tools.length} {s.tools.length === 1 ? 'tool' : 'tools'}: {s.tools.map((t, i) => (
                  <span key={t}>
                    {i > 0 && ', '}
                    <code>{t}</code>
                  </span>
                ))}
              </p>
            )}
          </li>
        ))}
      </ul>
    </div>
  )
}
