import { appendFileSync, chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { cwdKey } from '../../store/home.js'

/**
 * The prompts a user typed in a workspace, kept across sessions for Up/Down and Ctrl+R: one file per workspace,
 * `$REIN_HOME/prompt-history/<cwd key>.jsonl`, a `{"text", "time"}` line per prompt, owner-only (0600, its folder
 * 0700) because prompts may hold anything a user pasted. Bounded: the newest `HISTORY_KEEP` prompts are read, and
 * the file is rewritten to them once it holds twice as many; a prompt over `PROMPT_MAX_CHARS` is not kept.
 *
 * The session log is not the place: it holds what the model saw (attachments expanded, commands run), per session,
 * and reading every earlier session of a workspace at start-up would cost seconds.
 */
export const HISTORY_KEEP = 500
export const PROMPT_MAX_CHARS = 16_384

export interface PromptHistory {
  /** Earlier prompts of the workspace, oldest first. */
  load(cwd: string): string[]
  /** Records a prompt the user sent; failures are the caller's to report. */
  add(cwd: string, text: string): void
}

export function promptHistoryFile(home: string, cwd: string): string {
  return join(home, 'prompt-history', `${cwdKey(cwd)}.jsonl`)
}

function readEntries(file: string): string[] {
  let raw: string
  try {
    raw = readFileSync(file, 'utf8')
  } catch {
    // No file yet (the first prompt in this workspace) or unreadable: there is no history to offer.
    return []
  }
  const out: string[] = []
  for (const line of raw.split('\n')) {
    if (!line) continue
    try {
      const entry = JSON.parse(line) as { text?: unknown }
      if (typeof entry.text === 'string') out.push(entry.text)
    } catch {
      // A torn last line (a crash mid-append) or a hand edit: that one entry is dropped, the rest stay.
    }
  }
  return out
}

/** Consecutive repeats collapse to one, as a shell's history does. */
function withoutRepeats(texts: readonly string[]): string[] {
  return texts.filter((t, i) => i === 0 || texts[i - 1] !== t)
}

export function filePromptHistory(home: string): PromptHistory {
  const counts = new Map<string, number>()
  return {
    load(cwd) {
      const file = promptHistoryFile(home, cwd)
      const entries = readEntries(file)
      counts.set(file, entries.length)
      return withoutRepeats(entries).slice(-HISTORY_KEEP)
    },
    add(cwd, text) {
      if (!text.trim() || text.length > PROMPT_MAX_CHARS) return
      const file = promptHistoryFile(home, cwd)
      mkdirSync(join(home, 'prompt-history'), { recursive: true, mode: 0o700 })
      const line = `${JSON.stringify({ text, time: Date.now() })}\n`
      const count = (counts.get(file) ?? readEntries(file).length) + 1
      if (count > 2 * HISTORY_KEEP) {
        const kept = [...readEntries(file), text].slice(-HISTORY_KEEP)
        writeFileSync(file, kept.map((t) => `${JSON.stringify({ text: t, time: Date.now() })}\n`).join(''), { mode: 0o600 })
        counts.set(file, kept.length)
      } else {
        appendFileSync(file, line, { mode: 0o600 })
        counts.set(file, count)
      }
      chmodSync(file, 0o600)
    },
  }
}

/**
 * Ctrl+R: the newest prompt before `before` (an index into `history`, oldest first) that contains `query`,
 * case-insensitively; -1 when none does. An empty query matches every prompt.
 */
export function searchBack(history: readonly string[], query: string, before = history.length): number {
  const needle = query.toLowerCase()
  for (let i = Math.min(before, history.length) - 1; i >= 0; i--) {
    if (history[i].toLowerCase().includes(needle)) return i
  }
  return -1
}

/** Records a sent prompt; a history that cannot be written says so once per screen and the prompt still goes. */
export function keepPrompt(history: PromptHistory | undefined, cwd: string, text: string, warn: (text: string) => void, warned: { current: boolean }): void {
  if (!history) return
  try {
    history.add(cwd, text)
  } catch (error) {
    if (warned.current) return
    warned.current = true
    warn(`Could not save the prompt history: ${error instanceof Error ? error.message : String(error)}`)
  }
}
