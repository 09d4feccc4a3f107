import { classifyHttpError } from './classify.js'
import { modelError } from './describe.js'
import { DEFAULT_BASE_URL } from './create.js'
import { endpointFor } from './endpoints.js'
import { ModelError } from './errors.js'

/**
 * The model ids DeepSeek serves to this key: `GET {base}/models` (DeepSeek's "Lists Models" API), read from the
 * OpenAI-style `{data: [{id}]}` list. Throws a ModelError whose message is one sentence for a person.
 */
export async function listServedModels(options: { baseUrl?: string; apiKey: string; timeoutMs?: number }): Promise<string[]> {
  const url = endpointFor('chat', options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/chat\/completions$/, '/models')
  let response: Response
  try {
    response = await fetch(url, {
      headers: { authorization: `Bearer ${options.apiKey}`, accept: 'application/json' },
      signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
    })
  } catch (error) {
    throw modelError('transport', { url, detail: error instanceof Error ? error.message : String(error) })
  }
  const text = await response.text()
  if (!response.ok) throw classifyHttpError(response.status, text, response.headers, { hadKey: true, url })
  try {
    const data = (JSON.parse(text) as { data?: unknown }).data
    if (!Array.isArray(data)) throw new Error('no data list')
    return data.map((m: { id?: unknown }) => m?.id).filter((id): id is string => typeof id === 'string')
  } catch (error) {
    throw new ModelError('server', `DeepSeek answered ${url} with something that is not a model list; try again later.`, {
      detail: error instanceof Error ? error.message : String(error),
    })
  }
}
