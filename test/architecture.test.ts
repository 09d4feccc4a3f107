import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

/**
 * The layers of src/ (docs/architecture.md), lowest first. A folder may import its own layer and the layers below,
 * never one above; runtime imports only (`import type` and `export type` vanish when compiled). Top-level files
 * (index.ts, sdk.ts) are the package's entry and may import anything.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['text', 'fs', 'config', 'llm', 'store', 'session', 'tools', 'permissions', 'sandbox'],
  ['agent'],
  ['context', 'trust', 'hooks', 'mcp', 'prompt-files', 'plugins', 'slash', 'subagents', 'plan', 'checkpoints', 'compaction', 'titles'],
  ['runtime'],
  ['frontend'],
  ['cli', 'acp', 'web', 'fleet'],
]

/** Edges allowed against the rules above while a move is under way; empty: every edge keeps the layers. */
const KNOWN_EXCEPTIONS: readonly string[] = []

/** Surfaces import only downward: nothing but cli may import acp or web, and nothing may import cli. */
const SURFACE_RULES: readonly { to: string; allowedFrom: readonly string[] }[] = [
  { to: 'cli', allowedFrom: [] },
  { to: 'acp', allowedFrom: ['cli'] },
  { to: 'web', allowedFrom: ['cli'] },
]

const SRC = resolve(import.meta.dirname, '../src')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name)
    if (e.isDirectory()) return sourceFiles(path)
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [path] : []
  })
}

/** The relative module specifiers a file imports at run time: static imports and re-exports that are not type-only, and `import()`. */
function runtimeImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS)
  const found: string[] = []
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause
      const named = clause?.namedBindings
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly || (!clause.name && named !== undefined && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly)))
      if (!typeOnly) found.push(node.moduleSpecifier.text)
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.exportClause
      const typeOnly = node.isTypeOnly || (clause !== undefined && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly))
      if (!typeOnly) found.push(node.moduleSpecifier.text)
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      found.push(node.arguments[0].text)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found.filter((s) => s.startsWith('.'))
}

/** The folder of src/ a path is in; undefined for a top-level file or a path outside src/. */
function folderOf(path: string): string | undefined {
  const parts = relative(SRC, path).split(sep)
  return parts.length > 1 && parts[0] !== '..' ? parts[0] : undefined
}

/** Every runtime import from one folder of src/ into another: `from -> to` with the importing files. */
function folderEdges(): Map<string, string[]> {
  const edges = new Map<string, string[]>()
  for (const file of sourceFiles(SRC)) {
    const from = folderOf(file)
    if (!from) continue
    for (const specifier of runtimeImports(file)) {
      const to = folderOf(resolve(dirname(file), specifier))
      if (!to || to === from) continue
      const key = `${from} -> ${to}`
      edges.set(key, [...(edges.get(key) ?? []), relative(SRC, file)])
    }
  }
  return edges
}

const layerOf = (folder: string) => LAYERS.findIndex((l) => l.includes(folder))
const edges = folderEdges()

describe('the layers of src/', () => {
  it('places every folder of src/ in a layer', () => {
    const folders = readdirSync(SRC, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name)
    expect(folders.filter((f) => layerOf(f) < 0), 'add new folders to LAYERS here and to docs/architecture.md').toEqual([])
  })

  it('has no folder importing a folder of a higher layer', () => {
    const upward = [...edges].filter(([key]) => {
      const [from, to] = key.split(' -> ')
      return layerOf(to) > layerOf(from)
    })
    expect(upward.map(([key, files]) => `${key} (${files.join(', ')})`)).toEqual([])
  })

  it('keeps the surfaces apart: nothing imports cli, and only cli imports acp or web', () => {
    const broken = [...edges].filter(([key]) => {
      const [from, to] = key.split(' -> ')
      const rule = SURFACE_RULES.find((r) => r.to === to)
      return rule !== undefined && !rule.allowedFrom.includes(from)
    })
    expect(broken.map(([key, files]) => `${key} (${files.join(', ')})`)).toEqual([])
  })

  it('has no import cycle between folders, apart from the known exceptions', () => {
    const graph = new Map<string, string[]>()
    for (const key of edges.keys()) {
      if (KNOWN_EXCEPTIONS.includes(key)) continue
      const [from, to] = key.split(' -> ')
      graph.set(from, [...(graph.get(from) ?? []), to])
    }
    const cycles: string[] = []
    const state = new Map<string, 'open' | 'done'>()
    const path: string[] = []
    const visit = (node: string): void => {
      state.set(node, 'open')
      path.push(node)
      for (const next of graph.get(node) ?? []) {
        if (state.get(next) === 'open') {
          const loop = [...path.slice(path.indexOf(next)), next]
          cycles.push(loop.map((f, i) => (i ? `${loop[i - 1]} -> ${f} (${edges.get(`${loop[i - 1]} -> ${f}`)?.[0]})` : '')).filter(Boolean).join(', '))
        } else if (!state.has(next)) visit(next)
      }
      path.pop()
      state.set(node, 'done')
    }
    for (const node of graph.keys()) if (!state.has(node)) visit(node)
    expect(cycles).toEqual([])
  })

  it('lists as known exceptions only edges that still exist (empty the list as they go)', () => {
    expect(KNOWN_EXCEPTIONS.filter((key) => !edges.has(key))).toEqual([])
  })
})
