import type { ComponentChildren } from 'preact'
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'

interface Props<T> {
  items: readonly T[]
  keyOf: (item: T) => string
  render: (item: T) => ComponentChildren
  /** Bumped whenever an item changed in place. */
  version: number
  /** Pixels of unmeasured item assumed until it renders. */
  estimate?: number
  /** Called when the list is scrolled to its top (to load earlier items). */
  onTop?: () => void
  label: string
}

/** Items rendered beyond the visible part, above and below. */
const OVERSCAN_PX = 800

/**
 * A scrolling list that renders only the items near the viewport: the others are empty space of their measured (or
 * estimated) height. It follows the bottom while the reader is at the bottom, and keeps the reader's place when items
 * are added above.
 */
export function VirtualList<T>({ items, keyOf, render, version, estimate = 90, onTop, label }: Props<T>) {
  const box = useRef<HTMLDivElement>(null)
  const heights = useRef(new Map<string, number>())
  const [scroll, setScroll] = useState({ top: 0, height: 800 })
  const atBottom = useRef(true)
  const firstKey = useRef<string | undefined>(undefined)
  const anchor = useRef<{ key: string; offset: number } | undefined>(undefined)

  const offsets: number[] = new Array(items.length + 1)
  offsets[0] = 0
  for (let i = 0; i < items.length; i++) offsets[i + 1] = offsets[i] + (heights.current.get(keyOf(items[i])) ?? estimate)
  const total = offsets[items.length]

  let start = 0
  while (start < items.length && offsets[start + 1] < scroll.top - OVERSCAN_PX) start++
  let end = start
  while (end < items.length && offsets[end] < scroll.top + scroll.height + OVERSCAN_PX) end++

  // Items added above: keep the first visible item where it was.
  const newFirst = items.length ? keyOf(items[0]) : undefined
  if (firstKey.current !== undefined && newFirst !== firstKey.current && box.current && !atBottom.current) {
    const old = firstKey.current
    anchor.current = { key: old, offset: box.current.scrollTop }
  }
  firstKey.current = newFirst

  useLayoutEffect(() => {
    const el = box.current
    if (!el) return
    let changed = false
    for (const child of Array.from(el.querySelectorAll<HTMLElement>('[data-key]'))) {
      const key = child.dataset.key as string
      const h = child.offsetHeight
      if (heights.current.get(key) !== h) {
        heights.current.set(key, h)
        changed = true
      }
    }
    if (anchor.current) {
      const index = items.findIndex((item) => keyOf(item) === anchor.current?.key)
      if (index > 0) el.scrollTop = anchor.current.offset + offsets[index]
      anchor.current = undefined
    } else if (atBottom.current) {
      el.scrollTop = el.scrollHeight
    }
    if (changed) setScroll({ top: el.scrollTop, height: el.clientHeight })
  })

  useEffect(() => {
    const el = box.current
    if (!el) return
    const measure = (): void => {
      atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40
      setScroll({ top: el.scrollTop, height: el.clientHeight })
    }
    // Only the reader's own scrolling to the top asks for earlier items; a resize never does.
    const onScroll = (): void => {
      measure()
      if (el.scrollTop < 40) onTop?.()
    }
    el.addEventListener('scroll', onScroll, { passive: true })
    const resize = new ResizeObserver(measure)
    resize.observe(el)
    return () => {
      el.removeEventListener('scroll', onScroll)
      resize.disconnect()
    }
  }, [onTop])

  return (
    <div ref={box} class="virtual" role="log" aria-label={label} aria-live="polite" tabIndex={0} data-version={version}>
      <div style={{ height: `${total}px`, position: 'relative' }}>
        <div style={{ transform: `translateY(${offsets[start]}px)` }}>
          {items.slice(start, end).map((item) => (
            <div key={keyOf(item)} data-key={keyOf(item)}>
              {render(item)}
            </div>
          ))}
        </div>
      </div>
    </div>
  )
}
