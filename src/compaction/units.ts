import type { Message } from '../llm/messages.js'
import type { SurfaceEvent } from '../session/events.js'
import { projectEvent } from '../session/projection.js'

/** Estimated tokens of text or a value: bytes / 4, the same estimate the mock model and the footer use. */
export function estimateTokens(value: string | Message | null): number {
  if (value === null) return 0
  const text = typeof value === 'string' ? value : JSON.stringify(value)
  return Math.ceil(Buffer.byteLength(text, 'utf8') / 4)
}

/**
 * Surface entries that must stay together: an assistant message and the results of the calls it made form one
 * unit (a call is never split from its result); every other entry is a unit of its own.
 */
export interface Unit {
  /** Index of the unit's first entry in the surface. */
  first: number
  /** Index of its last entry. */
  last: number
  tokens: number
}

export function units(surface: readonly SurfaceEvent[]): Unit[] {
  const out: Unit[] = []
  let i = 0
  while (i < surface.length) {
    const entry = surface[i]
    let last = i
    if (entry.type === 'assistant/message') {
      const calls = new Set(entry.data.message.content.filter((b) => b.type === 'tool-call').map((b) => (b as { id: string }).id))
      while (calls.size && last + 1 < surface.length) {
        const next = surface[last + 1]
        if (next.type !== 'tool/result' || !calls.has(next.data.callId)) break
        calls.delete(next.data.callId)
        last++
      }
    }
    let tokens = 0
    for (let k = i; k <= last; k++) tokens += estimateTokens(projectEvent(surface[k]))
    out.push({ first: i, last, tokens })
    i = last + 1
  }
  return out
}

/**
 * The oldest whole units to shadow so that at least `keepTokens` of the most recent surface stays verbatim, and
 * always the most recent unit (what the model is answering must never be only summarized).
 * Returns surface indexes `[0, end]`, or null when nothing can be shadowed.
 */
export function chooseShadow(surface: readonly SurfaceEvent[], keepTokens: number): Shadow | null {
  const all = units(surface)
  let kept = 0
  let cut = all.length
  while (cut > 0 && (kept < keepTokens || cut === all.length)) {
    cut--
    kept += all[cut].tokens
  }
  return shadowOf(all, cut)
}

/** What a shadow covers: surface indexes `[0, end]`, their estimated tokens, and how many units that is. */
export interface Shadow {
  end: number
  tokens: number
  units: number
}

/**
 * The oldest whole units to shadow so that exactly the newest `keepUnits` units (at least one) stay verbatim: the
 * rule of a manual `/compact`, which summarizes everything but the newest exchange unless asked to keep more.
 */
export function chooseShadowKeepingUnits(surface: readonly SurfaceEvent[], keepUnits: number): Shadow | null {
  const all = units(surface)
  return shadowOf(all, Math.max(0, all.length - Math.max(1, keepUnits)))
}

function shadowOf(all: readonly Unit[], cut: number): Shadow | null {
  if (cut <= 0) return null
  const shadowed = all.slice(0, cut)
  return { end: shadowed[shadowed.length - 1].last, tokens: shadowed.reduce((n, u) => n + u.tokens, 0), units: cut }
}
