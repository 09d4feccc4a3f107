/**
 * The page's icons: a small hand-drawn set on a 16-unit grid, stroked in the text's colour, so they follow the theme.
 * Always decorative (`aria-hidden`): the control around an icon carries the name.
 */
const PATHS = {
  plus: 'M8 3v10M3 8h10',
  menu: 'M2.5 4.5h11M2.5 8h11M2.5 11.5h11',
  close: 'M4 4l8 8M12 4l-8 8',
  copy: 'M5.5 5.5h7v7h-7zM3.5 10.5v-7h7',
  check: 'M3 8.5l3 3 7-7',
  pencil: 'M10.5 2.5l3 3-7.5 7.5H3v-3z',
  archive: 'M2.5 3.5h11v3h-11zM3.5 6.5v6h9v-6M6.5 9h3',
  trash: 'M3 4.5h10M6.5 4.5V3h3v1.5M4.5 4.5l.7 8.5h5.6l.7-8.5',
  more: 'M3.5 8h.01M8 8h.01M12.5 8h.01',
  sun: 'M8 5.5a2.5 2.5 0 1 0 0 5 2.5 2.5 0 0 0 0-5zM8 1.5v1.5M8 13v1.5M1.5 8H3M13 8h1.5M3.4 3.4l1 1M11.6 11.6l1 1M3.4 12.6l1-1M11.6 4.4l1-1',
  moon: 'M13 9.5A5.5 5.5 0 0 1 6.5 3a5.5 5.5 0 1 0 6.5 6.5z',
  auto: 'M8 2a6 6 0 1 0 0 12zM8 2a6 6 0 0 1 0 12',
  command: 'M5.5 3.5a2 2 0 1 0 0 4h5a2 2 0 1 0-2-2v5a2 2 0 1 0 2-2h-5a2 2 0 1 0 2 2v-5',
  fork: 'M5 2.5v6M5 8.5c0 2 1.5 2.5 3.5 2.5h2M11 3.5a1.5 1.5 0 1 0 0 .01M5 13.5a1.5 1.5 0 1 0 0-.01M12.5 11a1.5 1.5 0 1 0 0 .01',
  rewind: 'M7.5 4L3 8l4.5 4zM13 4L8.5 8l4.5 4z',
  chart: 'M2.5 13.5h11M4.5 11V7M8 11V4M11.5 11V8.5',
  stop: 'M4.5 4.5h7v7h-7z',
  send: 'M2.5 8l11-5-4 11-2-4.5z',
  rein: 'M3 13V3h5a3 3 0 0 1 0 6H3M8 9l4.5 4',
} as const

export type IconName = keyof typeof PATHS

export function Icon({ name }: { name: IconName }) {
  return (
    <svg class="icon" viewBox="0 0 16 16" aria-hidden="true" focusable="false" fill="none" stroke="currentColor" stroke-width="1.5" stroke-linecap="round" stroke-linejoin="round">
      <path d={PATHS[name]} />
    </svg>
  )
}
