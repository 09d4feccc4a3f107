import type { JsonValue } from './events.js'

/**
 * A deep copy of `value` in which every object and array is frozen, or a thrown Error naming the first part that is
 * not plain JSON: `undefined` (also as an object property or array hole), functions, symbols, bigints, non-finite
 * numbers, cycles, and objects that are not plain (class instances, Dates, Maps). Strings are immutable and shared.
 * `path` names the value in the message (`data.content[2].text`).
 */
export function frozenJsonCopy(value: unknown, path: string): JsonValue {
  return copy(value, path, new Set())
}

function copy(value: unknown, path: string, ancestors: Set<object>): JsonValue {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value
    case 'number':
      if (!Number.isFinite(value)) throw notJson(path, `is ${value}, which JSON cannot hold`)
      return value
    case 'object':
      break
    default:
      throw notJson(path, `is ${typeof value === 'undefined' ? 'undefined' : `a ${typeof value}`}`)
  }
  if (value === null) return null
  if (ancestors.has(value)) throw notJson(path, 'refers back to itself (a cycle)')
  ancestors.add(value)
  let result: JsonValue
  if (Array.isArray(value)) {
    const items: JsonValue[] = new Array(value.length)
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) throw notJson(`${path}[${i}]`, 'is a hole in the array')
      items[i] = copy(value[i], `${path}[${i}]`, ancestors)
    }
    result = Object.freeze(items) as JsonValue[]
  } else {
    const prototype = Object.getPrototypeOf(value) as unknown
    if (prototype !== Object.prototype && prototype !== null) {
      const kind = (value as { constructor?: { name?: string } }).constructor?.name ?? 'non-plain'
      throw notJson(path, `is a ${kind} object, not a plain one`)
    }
    const object: { [key: string]: JsonValue } = {}
    for (const key of Object.keys(value)) {
      object[key] = copy((value as Record<string, unknown>)[key], `${path}.${key}`, ancestors)
    }
    result = Object.freeze(object)
  }
  ancestors.delete(value)
  return result
}

function notJson(path: string, what: string): Error {
  return new Error(`event data is not plain JSON: ${path} ${what}; pass only strings, finite numbers, booleans, null, arrays and plain objects.`)
}

/** Freezes a value parsed from JSON in place, objects and arrays at every depth. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const key in value) deepFreeze((value as Record<string, unknown>)[key])
  }
  return value
}
