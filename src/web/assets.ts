import { readdirSync, readFileSync, statSync } from 'node:fs'
import { extname, join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

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
      else assets.set(`/${relative(dir, path).split(sep).join('/')}`, { body: readFileSync(path), type: TYPES[extname(name)] ?? 'application/octet-stream' })
    }
  }
  try {
    walk(dir)
  } catch {
    // No built page (running from source without `npm run build`): the server answers with a sentence saying so.
  }
  return assets
}
