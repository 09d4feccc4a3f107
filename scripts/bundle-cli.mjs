// Bundles the compiled CLI (dist/cli/cli.js, every module it reaches and the packages they import) into
// dist/cli/bundle/, so `rein` starts by loading a few dozen files instead of hundreds of ES modules: on Node 20,
// which has no compile cache, module loading is most of the start-up time (README, "Performance targets"). Runs
// after `tsc` in `npm run build`. `dist/cli/main.js` uses the bundle only when it is newer than dist/cli/cli.js, so
// a plain `tsc` run is never shadowed by a stale bundle.
import { rmSync } from 'node:fs'
import { isBuiltin } from 'node:module'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'rolldown'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const out = join(root, 'dist', 'cli', 'bundle')
/**
 * Left as ordinary imports: Node's own modules; the protocol SDKs, loaded only by `rein acp` and by MCP servers, which
 * need no fast start; and ink's optional devtools, which are not installed.
 */
const external = (id) =>
  isBuiltin(id) || id.startsWith('@modelcontextprotocol/') || id.startsWith('@agentclientprotocol/') || id === 'react-devtools-core'

/**
 * yoga-layout (ink's layout engine) carries its WebAssembly inline as a base64 `data:` URL and, where `fetch` exists,
 * reads that URL with `fetch`, which loads Node's whole HTTP client (undici) before the terminal UI's first frame.
 * The bundle takes yoga's own fallback instead, decoding the inline bytes directly: the same module, tens of
 * milliseconds sooner. The build fails if yoga's loader no longer has this shape, rather than silently keep the cost.
 */
const YOGA_FETCH = 'return w||"function"!=typeof fetch?'
const yogaWithoutFetch = {
  name: 'yoga-without-fetch',
  transform(code, id) {
    if (!id.includes('yoga-layout') || !id.endsWith('yoga-wasm-base64-esm.js')) return null
    if (!code.includes(YOGA_FETCH)) throw new Error(`scripts/bundle-cli.mjs: yoga-layout's wasm loader changed shape (${id}); update yogaWithoutFetch.`)
    return code.replace(YOGA_FETCH, 'return true?')
  },
}

rmSync(out, { recursive: true, force: true })
await build({
  input: join(root, 'dist', 'cli', 'cli.js'),
  platform: 'node',
  external,
  // React and its renderer ship a development build beside the production one and pick by NODE_ENV when loaded;
  // the bundle is what users run, so it keeps only the production build (half the terminal UI's code to parse, and
  // no development-only checks while it renders).
  transform: { define: { 'process.env.NODE_ENV': '"production"' } },
  plugins: [
    yogaWithoutFetch,
    {
      // A module that finds files relative to itself (`new URL('../../package.json', import.meta.url)`) keeps its own
      // location inside the bundle: `import.meta.url`, `.filename` and `.dirname` become those of the file it was
      // compiled to.
      name: 'keep-module-urls',
      transform(code, id) {
        if (!/import\.meta\.(url|filename|dirname)/.test(code)) return null
        const own = `new URL(${JSON.stringify(relative(out, id).split('\\').join('/'))}, import.meta.url)`
        return code
          .replaceAll('import.meta.url', `${own}.href`)
          .replaceAll('import.meta.filename', `decodeURIComponent(${own}.pathname)`)
          .replaceAll('import.meta.dirname', `decodeURIComponent(new URL('.', ${own}).pathname).replace(/\\/$/, '')`)
      },
    },
  ],
  output: { dir: out, format: 'esm', entryFileNames: 'cli.js', chunkFileNames: '[name]-[hash].js' },
  logLevel: 'warn',
})
