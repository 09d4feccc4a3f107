import { searchBack } from './history.js'

/**
 * Ctrl+R over the prompt history, as a value: what is typed goes to the query, the newest prompt containing it is
 * the match; Ctrl+R again steps to an older match. Accepting puts the match in the editor (it is not sent); cancelling
 * gives back the draft the search started from.
 */
export interface HistorySearch {
  query: string
  /** Index of the match in the history (oldest first); -1 when no prompt contains the query. */
  match: number
  /** The editor's text when the search began. */
  draft: string
}

export function startSearch(history: readonly string[], draft: string): HistorySearch {
  return { query: '', match: searchBack(history, ''), draft }
}

export function typeInSearch(history: readonly string[], search: HistorySearch, text: string): HistorySearch {
  const query = search.query + text.replace(/[\r\n]/g, ' ')
  // A longer query keeps the current match when it still fits, as readline's search does.
  const stays = search.match >= 0 && history[search.match].toLowerCase().includes(query.toLowerCase())
  return { ...search, query, match: stays ? search.match : searchBack(history, query) }
}

export function eraseInSearch(history: readonly string[], search: HistorySearch): HistorySearch {
  const query = search.query.slice(0, -1)
  return { ...search, query, match: searchBack(history, query) }
}

/** Ctrl+R again: the next older prompt containing the query; stays on the oldest when there is none. */
export function searchOlder(history: readonly string[], search: HistorySearch): HistorySearch {
  if (search.match < 0) return search
  const older = searchBack(history, search.query, search.match)
  return older < 0 ? search : { ...search, match: older }
}

/** The text the editor takes when the search is accepted. */
export function acceptedText(history: readonly string[], search: HistorySearch): string {
  return search.match >= 0 ? history[search.match] : search.draft
}

/** The line under the editor while searching. */
export function searchLine(history: readonly string[], search: HistorySearch): string {
  const shown = search.query ? `“${search.query}”` : 'type to search'
  if (search.match < 0) return `reverse search ${shown}: no earlier prompt has it · Esc cancels`
  return `reverse search ${shown} · Ctrl+R older · Enter takes it · Esc cancels`
}
