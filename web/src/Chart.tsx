import { useState } from 'preact/hooks'
import type { StepFigures } from './types'

const W = 720
const H = 160
const PAD = 34

/** Which steps get a label under the axis: at most about 12, evenly spaced, the first and the last always. */
export function ticks(count: number): number[] {
  if (count <= 0) return []
  const every = Math.max(1, Math.ceil(count / 12))
  const out: number[] = []
  for (let i = 0; i < count; i += every) out.push(i)
  if (out[out.length - 1] !== count - 1) {
    if (count - 1 - out[out.length - 1] < every / 2) out.pop()
    out.push(count - 1)
  }
  return out
}

/** One path of bars: each a closed rectangle standing on the axis, `height(i)` user units tall. */
function barsPath(count: number, left: (i: number) => number, width: number, base: number, height: (i: number) => number): string {
  const parts: string[] = []
  for (let i = 0; i < count; i++) {
    const h = height(i)
    if (h > 0) parts.push(`M${left(i).toFixed(1)},${base}v${(-h).toFixed(1)}h${width.toFixed(2)}v${h.toFixed(1)}z`)
  }
  return parts.join('')
}

/**
 * Per-step figures as inline SVG: prompt tokens as bars (the cached part darker), cache-hit share and cost as lines
 * scaled to the chart's height. Drawn with attributes only, so the strict CSP needs no inline style. The bars are two
 * paths, not two elements a step: a 1,000-step session's chart is a handful of elements, and the pointer's step is
 * read out in one line (the steps table below lists every figure for keyboard and screen-reader users).
 */
export function StepChart({ steps }: { steps: readonly StepFigures[] }) {
  const [hovered, setHovered] = useState<number>()
  if (!steps.length) return <p class="muted">No step has reported usage yet.</p>
  const maxTokens = Math.max(1, ...steps.map((s) => s.promptTokens + s.outputTokens))
  const maxCost = Math.max(1e-9, ...steps.map((s) => s.cost))
  const slot = (W - 2 * PAD) / steps.length
  const x = (i: number): number => PAD + i * slot
  const y = (share: number): number => H - PAD - share * (H - 2 * PAD)
  const width = Math.max(1, slot * 0.7)
  const tall = (tokens: number): number => (tokens / maxTokens) * (H - 2 * PAD)
  const shown = hovered !== undefined ? steps[hovered] : undefined
  const onMove = (event: MouseEvent): void => {
    const svg = event.currentTarget as SVGSVGElement
    const box = svg.getBoundingClientRect()
    const at = Math.floor((((event.clientX - box.left) / box.width) * W - PAD) / slot)
    setHovered(at >= 0 && at < steps.length ? at : undefined)
  }
  const line = (value: (s: StepFigures) => number): string =>
    steps.map((s, i) => `${i ? 'L' : 'M'}${(x(i) + slot / 2).toFixed(1)},${y(value(s)).toFixed(1)}`).join(' ')
  return (
    <figure>
      <svg
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-label="Tokens, cache-hit share and cost per step"
        class="chart"
        onMouseMove={onMove}
        onMouseLeave={() => setHovered(undefined)}
      >
        <line x1={PAD} y1={H - PAD} x2={W - PAD} y2={H - PAD} class="axis" />
        <line x1={PAD} y1={PAD} x2={PAD} y2={H - PAD} class="axis" />
        <line x1={W - PAD} y1={PAD} x2={W - PAD} y2={H - PAD} class="axis" />
        <text x={PAD - 4} y={H - PAD} class="label" text-anchor="end" data-axis="tokens-0">
          0
        </text>
        <text x={W - PAD + 4} y={PAD + 4} class="label" data-axis="share-max">
          100%
        </text>
        <text x={W - PAD + 4} y={H - PAD} class="label" data-axis="share-0">
          0%
        </text>
        {ticks(steps.length).map((i) => (
          <text key={i} x={x(i) + slot / 2} y={H - PAD + 14} class="label" text-anchor="middle" data-axis="step">
            {steps[i].purpose === 'compaction' ? 'c' : `${steps[i].turn}.${steps[i].step}`}
          </text>
        ))}
        <path d={barsPath(steps.length, x, width, H - PAD, (i) => tall(steps[i].promptTokens + steps[i].outputTokens))} class="bar-total" />
        <path d={barsPath(steps.length, x, width, H - PAD, (i) => tall(steps[i].cachedTokens))} class="bar-cached" />
        {hovered !== undefined && <rect x={x(hovered)} y={PAD} width={width} height={H - 2 * PAD} class="bar-hover" />}
        <path d={line((s) => s.cacheHitShare)} class="line-cache" fill="none" />
        <path d={line((s) => s.cost / maxCost)} class="line-cost" fill="none" />
        <text x={PAD} y={PAD - 10} class="label" data-axis="tokens-max">
          {maxTokens.toLocaleString('en-US')} tokens
        </text>
        <text x={W / 2} y={H - 2} class="label" text-anchor="middle">
          step (turn.step)
        </text>
      </svg>
      <figcaption class="legend">
        <span class="readout" aria-live="off">
          {shown
            ? `turn ${shown.turn} step ${shown.step}: ${shown.promptTokens} prompt (${shown.cachedTokens} cached), ${shown.outputTokens} output, $${shown.cost.toFixed(6)}`
            : 'Point at a bar for its figures.'}
        </span>{' '}
        <span class="key bar-total">tokens</span> <span class="key bar-cached">cached</span> <span class="key line-cache">cache-hit share</span>{' '}
        <span class="key line-cost">cost (max ${maxCost.toFixed(6)})</span>
      </figcaption>
    </figure>
  )
}
