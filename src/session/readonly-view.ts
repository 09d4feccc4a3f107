import { LINEAGE } from '../llm/lineage.js'

/**
 * A fixed-length, read-only array view of the first `length` items of an append-only backing array: O(1) to create,
 * however long the array. This is how `Session.messages()` hands out each request's message list without copying:
 * the backing array only ever grows past `length` (a replace switches to a new backing array), so a view never
 * changes after it is made. `Array.isArray` is true and `map`, `for…of`, spreading, indexing and `JSON.stringify`
 * work as on an array; writes throw a TypeError. Two limits of a Proxy: `Object.isFrozen` reports false and
 * `structuredClone` refuses it (spread it into a plain array first). `lineage`, when given, is what `view[LINEAGE]`
 * answers (src/llm/lineage.ts): the caller keeps its contract.
 */
export function readonlyView<T>(backing: readonly T[], length: number, lineage?: object): readonly T[] {
  const refuse = (): never => {
    throw new TypeError('this list is a read-only view of the session log; copy it ([...list]) to change it.')
  }
  const index = (key: string | symbol): number => {
    if (typeof key !== 'string') return -1
    const code = key.charCodeAt(0)
    if (code < 48 || code > 57) return -1
    const i = Number(key)
    return Number.isInteger(i) && String(i) === key && i < length ? i : -1
  }
  return new Proxy([] as T[], {
    get(target, key, receiver) {
      if (key === 'length') return length
      if (key === LINEAGE) return lineage
      const i = index(key)
      if (i !== -1) return backing[i]
      return Reflect.get(target, key, receiver) as unknown
    },
    has(target, key) {
      return key === 'length' || index(key) !== -1 || Reflect.has(target, key)
    },
    ownKeys() {
      const keys: string[] = new Array(length + 1)
      for (let i = 0; i < length; i++) keys[i] = String(i)
      keys[length] = 'length'
      return keys
    },
    getOwnPropertyDescriptor(target, key) {
      if (key === 'length') return { value: length, writable: true, enumerable: false, configurable: false }
      const i = index(key)
      if (i !== -1) return { value: backing[i], writable: false, enumerable: true, configurable: true }
      return Reflect.getOwnPropertyDescriptor(target, key)
    },
    set: refuse,
    defineProperty: refuse,
    deleteProperty: refuse,
    setPrototypeOf: refuse,
    preventExtensions: refuse,
  })
}
