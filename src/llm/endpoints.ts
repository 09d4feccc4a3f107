/**
 * Where each wire's requests go. DeepSeek documents both `https://api.deepseek.com` and `https://api.deepseek.com/v1`
 * as the chat base URL, and `https://api.deepseek.com/anthropic` as the Anthropic one; a user may set any of them.
 *
 * - chat: `{base}/chat/completions`, with a trailing `/anthropic` dropped from the base.
 * - anthropic: `{anthropicBase}/v1/messages`, where `anthropicBase` is `DEEPSEEK_ANTHROPIC_BASE_URL` when set, else the
 *   base with a trailing `/v1` replaced by `/anthropic` (or `/anthropic` added). A base already ending in `/anthropic`
 *   or `/anthropic/v1` is used as it is, so no form yields `/v1/anthropic/v1/messages`.
 */
export function endpointFor(wire: 'chat' | 'anthropic', base: string, anthropicBase?: string): string {
  const root = trimSlashes(base)
  if (wire === 'chat') return `${root.replace(/\/anthropic(\/v1)?$/, '')}/chat/completions`
  const explicit = anthropicBase ? trimSlashes(anthropicBase) : undefined
  const anthropic = explicit ?? (/\/anthropic(\/v1)?$/.test(root) ? root : `${root.replace(/\/v1$/, '')}/anthropic`)
  return `${anthropic.replace(/\/v1$/, '')}/v1/messages`
}

function trimSlashes(url: string): string {
  return url.replace(/\/+$/, '')
}
