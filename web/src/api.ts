/** Calls to the server's JSON API. The cookie proves the token; every failure becomes an Error with the server's sentence. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

async function parse<T>(response: Response): Promise<T> {
  const text = await response.text()
  let value: unknown = undefined
  try {
    value = text ? JSON.parse(text) : undefined
  } catch {
    // Not JSON (a proxy's error page): the status line below says what happened.
  }
  if (!response.ok) {
    const error = (value as { error?: unknown } | undefined)?.error
    throw new ApiError(response.status, typeof error === 'string' ? error : `The server answered ${response.status} ${response.statusText}.`)
  }
  return value as T
}

export async function get<T>(path: string): Promise<T> {
  return parse<T>(await fetch(path, { credentials: 'same-origin' }))
}

/**
 * A GET that revalidates: with the ETag of the copy the page holds, an unchanged answer (304) is `undefined`, so the
 * caller keeps its copy; otherwise the new value and its ETag.
 */
export async function getIfChanged<T>(path: string, etag: string | undefined): Promise<{ value: T; etag?: string } | undefined> {
  const response = await fetch(path, { credentials: 'same-origin', cache: 'no-store', headers: etag ? { 'If-None-Match': etag } : {} })
  if (response.status === 304) return undefined
  const value = await parse<T>(response)
  return { value, ...(response.headers.get('etag') ? { etag: response.headers.get('etag') as string } : {}) }
}

export async function post<T>(path: string, body: unknown = {}): Promise<T> {
  return parse<T>(
    await fetch(path, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    }),
  )
}

/**
 * Trades the token in the address's fragment (`#token=…`) for the server's HttpOnly cookie, then removes it from
 * the address bar and history. Without a fragment the cookie from an earlier load must already be set.
 */
const TOKEN = /(?:^#|&)token=([0-9a-fA-F]+)/

/** Whether the address's fragment carries a token to trade. */
export function hasToken(): boolean {
  return TOKEN.test(location.hash)
}

export async function exchangeToken(): Promise<void> {
  const match = TOKEN.exec(location.hash)
  if (!match) return
  await parse(await fetch('/api/auth', { method: 'POST', credentials: 'same-origin', headers: { Authorization: `Bearer ${match[1]}` } }))
  history.replaceState(null, '', `${location.pathname}${location.search}#/`)
}

/** A built-in command the server offers the page (src/frontend/commands, `GET /api/sessions/:id/commands`). */
export interface CatalogCommand {
  name: string
  aliases: string[]
  hint?: string
  choices?: string[]
  help: string
}

/** The built-ins this session offers on the web. */
export async function listCommands(sessionId: string): Promise<CatalogCommand[]> {
  return (await get<{ builtins: CatalogCommand[] }>(`/api/sessions/${encodeURIComponent(sessionId)}/commands`)).builtins
}

/** Runs `/name args` in a session; resolves with its replies, or rejects with the server's one sentence. */
export async function runCommand(sessionId: string, name: string, args = ''): Promise<{ text: string; title?: string }[]> {
  return (await post<{ replies: { text: string; title?: string }[] }>(`/api/sessions/${encodeURIComponent(sessionId)}/commands`, { name, args })).replies
}
