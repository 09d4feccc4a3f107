import { readFile } from 'node:fs/promises'
import { displayPath, resolveToolPath } from './paths.js'
import type { ShownArgs, ShownResult } from './tool.js'

// Helpers for the `display` each tool declares (docs/tool-display.md). Arguments arrive unvalidated: every helper
// answers undefined for a field that is missing or not of its type, and never throws.

/** The first of `keys` that holds a non-empty string. */
export function stringArg(args: ShownArgs, ...keys: string[]): string | undefined {
  for (const key of keys) {
    const value = args[key]
    if (typeof value === 'string' && value !== '') return value
  }
  return undefined
}

/** A path argument as a person reads it: relative to `cwd` when inside it, absolute otherwise. */
export function pathArg(args: ShownArgs, cwd: string, ...keys: string[]): string | undefined {
  const value = stringArg(args, ...keys)
  if (value === undefined) return undefined
  try {
    return displayPath(cwd, resolveToolPath(cwd, value))
  } catch {
    // A path no resolver accepts (a NUL byte): shown as written; the tool itself refuses it.
    return value
  }
}

/** A string field of a result's `meta`. */
export function metaString(result: ShownResult, key: string): string | undefined {
  const meta = result.meta
  if (meta && typeof meta === 'object' && !Array.isArray(meta)) {
    const value = meta[key]
    if (typeof value === 'string') return value
  }
  return undefined
}

/** A number field of a result's `meta`. */
export function metaNumber(result: ShownResult, key: string): number | undefined {
  const meta = result.meta
  if (meta && typeof meta === 'object' && !Array.isArray(meta)) {
    const value = meta[key]
    if (typeof value === 'number') return value
  }
  return undefined
}

/** The file's text, or null when it does not exist or cannot be read as a file. */
export async function currentText(absolute: string): Promise<string | null> {
  try {
    return await readFile(absolute, 'utf8')
  } catch {
    return null
  }
}
