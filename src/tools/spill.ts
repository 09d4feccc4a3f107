import { randomBytes } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { ToolState } from './tool.js'

/** The most characters of one tool result that reach the model; the whole text goes to a spill file. */
export const MODEL_OUTPUT_CAP = 30_000

/** Creates the spill directory (mode 0700) if needed and returns a fresh private file path in it. */
export function spillPath(state: ToolState, label: string): string {
  mkdirSync(state.spillDir, { recursive: true, mode: 0o700 })
  const safe = label.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40)
  return path.join(state.spillDir, `${safe}-${randomBytes(6).toString('hex')}.txt`)
}

/** Writes `text` to a new private file (mode 0600) in the spill directory and returns its path. */
export function spillText(state: ToolState, label: string, text: string): string {
  const file = spillPath(state, label)
  writeFileSync(file, text, { mode: 0o600 })
  return file
}

/**
 * Keeps a result within `MODEL_OUTPUT_CAP`: text that fits is returned as is; longer text keeps its head, and the
 * whole text is spilled to a file whose path ends the returned text so the model can read the rest.
 */
export function capForModel(state: ToolState, label: string, text: string, cap = MODEL_OUTPUT_CAP): string {
  if (text.length <= cap) return text
  const file = spillText(state, label, text)
  const head = text.slice(0, cap)
  const cut = head.lastIndexOf('\n')
  const kept = cut > cap / 2 ? head.slice(0, cut) : head
  return `${kept}\n[output cut at ${kept.length} of ${text.length} characters; the full output is in ${file}]`
}
