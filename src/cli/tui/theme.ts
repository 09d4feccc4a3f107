/**
 * Every colour the terminal UI draws, by what it means. ink components take a role's colour as their `color` prop;
 * text styled before ink sees it (Markdown, highlighted code) goes through `paint`. The dark theme keeps the 16 basic
 * colours, so the terminal's palette decides the shades; the light theme uses darker 256-colour shades where the
 * basic yellow, cyan and white wash out on a light background.
 */
export type ThemeName = 'dark' | 'light'

/** The setting `theme`: a fixed theme, or `auto` (detected from the terminal's background). */
export type ThemeSetting = ThemeName | 'auto'

export const THEME_SETTINGS: readonly ThemeSetting[] = ['auto', 'dark', 'light']

/** A colour as ink's `color` prop takes it: a basic name, `ansi256(n)`. */
export type Colour = string

export interface Theme {
  name: ThemeName
  /** The user's prompt marker, selections, code spans, the picker's frame. */
  accent: Colour
  /** Emphasised text on the default background (a permission prompt's subject). */
  strong: Colour
  /** Tool card names. */
  tool: Colour
  /** Success marks, accept-edits mode. */
  ok: Colour
  /** Steering, queued items, warnings, permission prompts, the running mark. */
  warn: Colour
  /** Failures, bypass mode. */
  error: Colour
  /** Plan mode. */
  plan: Colour
  added: Colour
  removed: Colour
  /** Code highlighting. */
  code: { keyword: Colour; type: Colour; literal: Colour; string: Colour; title: Colour; comment: Colour }
}

export const DARK: Theme = {
  name: 'dark',
  accent: 'cyan',
  strong: 'white',
  tool: 'magenta',
  ok: 'green',
  warn: 'yellow',
  error: 'red',
  plan: 'blue',
  added: 'green',
  removed: 'red',
  code: { keyword: 'magenta', type: 'cyan', literal: 'yellow', string: 'green', title: 'blue', comment: 'gray' },
}

export const LIGHT: Theme = {
  name: 'light',
  accent: 'ansi256(25)',
  strong: 'black',
  tool: 'ansi256(127)',
  ok: 'ansi256(28)',
  warn: 'ansi256(130)',
  error: 'ansi256(160)',
  plan: 'ansi256(19)',
  added: 'ansi256(28)',
  removed: 'ansi256(160)',
  code: { keyword: 'ansi256(127)', type: 'ansi256(30)', literal: 'ansi256(130)', string: 'ansi256(28)', title: 'ansi256(25)', comment: 'ansi256(244)' },
}

let current: Theme = DARK
let setting: ThemeSetting = 'auto'

/** The theme the UI draws with now. */
export function theme(): Theme {
  return current
}

/** The setting that chose it (`auto` follows the terminal's background). */
export function themeSetting(): ThemeSetting {
  return setting
}

export function setTheme(name: ThemeName, from: ThemeSetting = name): void {
  current = name === 'light' ? LIGHT : DARK
  setting = from
}

const BASIC: Record<string, number> = { black: 30, red: 31, green: 32, yellow: 33, blue: 34, magenta: 35, cyan: 36, white: 37, gray: 90, grey: 90 }

/** `text` in `colour` as SGR, closed with the foreground reset only (so styles around it stay). */
export function paint(colour: Colour, text: string): string {
  const n = /^ansi256\((\d+)\)$/.exec(colour)?.[1]
  const open = n !== undefined ? `38;5;${n}` : BASIC[colour] !== undefined ? String(BASIC[colour]) : undefined
  return open === undefined ? text : `\x1b[${open}m${text}\x1b[39m`
}

/**
 * The background `COLORFGBG` names (`fg;bg` or `fg;default;bg`, set by rxvt, Konsole and others): colours 7 and 15
 * (white, bright white) and the light greys of the 256-colour cube are light; other indexes are dark.
 */
export function themeOfColorFgBg(value: string | undefined): ThemeName | undefined {
  const bg = value?.split(';').at(-1)
  if (!bg || !/^\d+$/.test(bg)) return undefined
  const index = Number(bg)
  return index === 7 || index === 15 || (index >= 250 && index <= 255) ? 'light' : 'dark'
}

/** Asks the terminal for its background colour (OSC 11); the answer is `ESC ] 11 ; rgb:RRRR/GGGG/BBBB` then BEL or ST. */
export const BACKGROUND_QUERY = '\x1b]11;?\x07'

// The terminal's reply starts with ESC and ends with BEL or ESC \: those bytes are the point of the pattern.
// eslint-disable-next-line no-control-regex
const BACKGROUND_REPLY = /\x1b\]11;rgb:([0-9a-f]{1,4})\/([0-9a-f]{1,4})\/([0-9a-f]{1,4})(?:\x07|\x1b\\)/i

/**
 * The theme a background reply calls for, and the input without the reply (keys typed around it are kept). Light
 * when the colour's relative luminance is above one half.
 */
export function takeBackgroundReply(input: string): { theme?: ThemeName; rest: string } {
  const match = BACKGROUND_REPLY.exec(input)
  if (!match) return { rest: input }
  const [r, g, b] = match.slice(1, 4).map((hex) => parseInt(hex, 16) / (16 ** hex.length - 1))
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b
  return { theme: luminance > 0.5 ? 'light' : 'dark', rest: input.slice(0, match.index) + input.slice(match.index + match[0].length) }
}

/**
 * The theme to draw with: a fixed setting wins; `auto` takes `COLORFGBG`, then the terminal's reply to the
 * background query when one came, else dark (most terminals' default).
 */
export function chooseTheme(setting: ThemeSetting | undefined, env: NodeJS.ProcessEnv, replied?: ThemeName): ThemeName {
  if (setting === 'dark' || setting === 'light') return setting
  return themeOfColorFgBg(env.COLORFGBG) ?? replied ?? 'dark'
}
