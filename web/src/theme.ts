/** The colour theme: the system's (prefers-color-scheme), or one the person chose, kept in localStorage. */
export type Theme = 'system' | 'light' | 'dark'

const KEY = 'rein.theme'
export const THEMES: readonly Theme[] = ['system', 'light', 'dark']

export function savedTheme(): Theme {
  const saved = localStorage.getItem(KEY)
  return saved === 'light' || saved === 'dark' ? saved : 'system'
}

/** Applies `theme` to the page (`data-theme` on the root; styles.css holds both palettes) and keeps it. */
export function applyTheme(theme: Theme): void {
  if (theme === 'system') {
    delete document.documentElement.dataset.theme
    localStorage.removeItem(KEY)
  } else {
    document.documentElement.dataset.theme = theme
    localStorage.setItem(KEY, theme)
  }
}
