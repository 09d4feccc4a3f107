import { useEffect, useState } from 'preact/hooks'

/** Where a scrolling box stands: its scroll offset and visible height, in pixels. */
export interface ScrollView {
  top: number
  height: number
}

/**
 * The scroll offset and height of `box`, kept current on scroll and resize: what a table that draws only the rows in
 * view (SessionTable, StepTable) needs to choose them. `height` is assumed until the box is first measured. The
 * second value measures again at once, for code that has just scrolled the box itself (the scroll event comes later).
 */
export function useScrollView(box: { current: HTMLElement | null }, height: number): [ScrollView, () => void] {
  const [view, setView] = useState<ScrollView>({ top: 0, height })
  const remeasure = (): void => {
    const el = box.current
    if (el) setView({ top: el.scrollTop, height: el.clientHeight })
  }
  useEffect(() => {
    const el = box.current
    if (!el) return
    const measure = (): void => setView({ top: el.scrollTop, height: el.clientHeight })
    measure()
    el.addEventListener('scroll', measure, { passive: true })
    const resize = new ResizeObserver(measure)
    resize.observe(el)
    return () => {
      el.removeEventListener('scroll', measure)
      resize.disconnect()
    }
  }, [])
  return [view, remeasure]
}
