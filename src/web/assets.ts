import { readdirSync, readFileSync, statSync } from 'node:fs'
import { extname, join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'

/** The built page: `npm run build` writes it to dist/web-ui, beside dist/web where this module runs. */
export const UI_DIR = fileURLToPath(new URL('../web-ui/', import.meta.url))

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
}

export interface Asset {
  body: Buffer
  type: string
  /** The body compressed once at start-up (text assets only; absent where compressing would not shrink it). */
  br?: Buffer
  gzip?: Buffer
}

const TEXT = /^(text\/|application\/json|image\/svg)/

/** Compresses a text asset with brotli and gzip at their strongest levels: it happens once per start. */
function compressed(body: Buffer, type: string): Pick<Asset, 'br' | 'gzip'> {
  if (!TEXT.test(type) || body.length < 1024) return {}
  const br = brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } })
  const gzip = gzipSync(body, { level: 9 })
  return { ...(br.length < body.length ? { br } : {}), ...(gzip.length < body.length ? { gzip } : {}) }
}

/** The encoding to send an asset in, given the request's `Accept-Encoding`: brotli, else gzip, else none. */
export function assetEncoding(asset: Asset, accept: string | undefined): 'br' | 'gzip' | undefined {
  const accepted = new Map<string, number>()
  for (const part of (accept ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';')
    if (!name) continue
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined)
    accepted.set(name, q === undefined ? 1 : Number(q))
  }
  const ok = (name: string): boolean => (accepted.get(name) ?? accepted.get('*') ?? 0) > 0
  if (asset.br && ok('br')) return 'br'
  if (asset.gzip && ok('gzip')) return 'gzip'
  return undefined
}

/**
 * Every file of the built page, read once at start-up and served from memory by its URL path. A request can only
 * name one of these, so no path a client sends ever reaches the file system.
 */
export function loadAssets(dir = UI_DIR): Map<string, Asset> {
  const assets = new Map<string, Asset>()
  const walk = (folder: string): void => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name)
      if (statSync(path).isDirectory()) walk(path)
      else {
        const body = readFileSync(path)
        const type = TYPES[extname(name)] ?? 'application/octet-stream'
        assets.set(`/${relative(dir, path).split(sep).join('/')}`, { body, type, ...compressed(body, type) })
      }
    }
  }
  try {
    walk(dir)
  } catch {
    // No built page (running from source without `npm run build`): the server answers with a sentence saying so.
  }
  return assets
}
