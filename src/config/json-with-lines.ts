/**
 * A strict JSON parser (RFC 8259) that knows where it is: a syntax error names its line and column, and every value
 * is mapped to the line it starts on, keyed by its path (`permissions.allow.2`). `JSON.parse` in Node 20 reports
 * neither, and a settings error must name the line. Hand-written: it is small, and no installed package does this.
 */
export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(message)
  }
}

export interface ParsedJson {
  value: unknown
  /** The 1-based line each value starts on, by dotted path; the root is ''. */
  lines: Map<string, number>
}

export function parseJsonWithLines(text: string): ParsedJson {
  let pos = text.charCodeAt(0) === 0xfeff ? 1 : 0
  const lines = new Map<string, number>()

  const lineAt = (at: number) => {
    let line = 1
    for (let i = 0; i < at && i < text.length; i++) if (text.charCodeAt(i) === 10) line++
    return line
  }
  const fail = (message: string, at = pos): never => {
    const line = lineAt(at)
    const column = at - text.lastIndexOf('\n', at - 1)
    throw new JsonSyntaxError(message, line, column)
  }
  // Raw newlines can only stand between tokens (strings reject control characters), so counting them here is exact.
  let line = 1
  const skipSpace = () => {
    while (pos < text.length && ' \t\n\r'.includes(text[pos])) {
      if (text[pos] === '\n') line++
      pos++
    }
  }
  const describe = () => (pos >= text.length ? 'end of file' : `'${text[pos]}'`)

  const parseString = (): string => {
    const start = pos
    pos++
    let out = ''
    for (;;) {
      if (pos >= text.length) fail('unterminated string', start)
      const c = text[pos]
      if (c === '"') {
        pos++
        return out
      }
      if (c === '\\') {
        const e = text[pos + 1]
        const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' }
        if (e in simple) {
          out += simple[e]
          pos += 2
        } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(pos + 2, pos + 6))) {
          out += String.fromCharCode(parseInt(text.slice(pos + 2, pos + 6), 16))
          pos += 6
        } else fail('invalid escape in string')
      } else if (c.charCodeAt(0) < 0x20) fail('control character in string (escape it)')
      else {
        out += c
        pos++
      }
    }
  }

  const parseValue = (path: string): unknown => {
    skipSpace()
    lines.set(path, line)
    const c = text[pos]
    const child = (key: string | number) => (path === '' ? String(key) : `${path}.${key}`)
    if (c === '{') {
      pos++
      const obj: Record<string, unknown> = {}
      skipSpace()
      if (text[pos] === '}') {
        pos++
        return obj
      }
      for (;;) {
        skipSpace()
        if (text[pos] !== '"') fail(`expected a property name in double quotes, found ${describe()}`)
        const key = parseString()
        skipSpace()
        if (text[pos] !== ':') fail(`expected ':' after "${key}", found ${describe()}`)
        pos++
        obj[key] = parseValue(child(key))
        skipSpace()
        if (text[pos] === ',') {
          pos++
          skipSpace()
          if (text[pos] === '}') fail("trailing comma before '}'")
          continue
        }
        if (text[pos] === '}') {
          pos++
          return obj
        }
        fail(`expected ',' or '}', found ${describe()}`)
      }
    }
    if (c === '[') {
      pos++
      const arr: unknown[] = []
      skipSpace()
      if (text[pos] === ']') {
        pos++
        return arr
      }
      for (;;) {
        arr.push(parseValue(child(arr.length)))
        skipSpace()
        if (text[pos] === ',') {
          pos++
          skipSpace()
          if (text[pos] === ']') fail("trailing comma before ']'")
          continue
        }
        if (text[pos] === ']') {
          pos++
          return arr
        }
        fail(`expected ',' or ']', found ${describe()}`)
      }
    }
    if (c === '"') return parseString()
    const literal = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(pos, pos + 400))
    if (!literal) fail(`unexpected ${describe()}`)
    pos += literal![0].length
    return JSON.parse(literal![0])
  }

  const value = parseValue('')
  skipSpace()
  if (pos < text.length) fail(`unexpected ${describe()} after the end of the JSON value`)
  return { value, lines }
}
