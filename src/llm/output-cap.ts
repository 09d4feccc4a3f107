/**
 * How many output tokens a request asks for. DeepSeek refuses a request whose prompt plus `max_tokens` exceeds the
 * model's context length, so the cap is the ceiling (the smaller of the model's maximum output and the user's cap)
 * unless the prompt leaves less room, and never below a floor that still lets the model answer.
 *
 * The prompt is estimated as the request body's UTF-8 bytes / 4 — the body holds every byte of the prompt plus a
 * little JSON, so the estimate errs high — and a margin of 4,096 tokens plus 5 % of the estimate covers text that
 * tokenizes denser than 4 bytes a token. Pure: a function of the logged header and the projected messages only.
 */

/** Below this the model could not say anything useful; a request that leaves less room is left to compaction. */
export const OUTPUT_FLOOR = 4_096

export function promptTokenEstimate(bodyBytes: number): number {
  return Math.ceil(bodyBytes / 4)
}

export function safetyMargin(promptTokens: number): number {
  return 4_096 + Math.ceil(promptTokens * 0.05)
}

/** The `max_tokens` to send for a prompt of about `promptTokens` tokens. */
export function fittedOutputCap(ceiling: number, contextWindow: number, promptTokens: number): number {
  const room = contextWindow - promptTokens - safetyMargin(promptTokens)
  return Math.max(Math.min(OUTPUT_FLOOR, ceiling), Math.min(ceiling, room))
}
