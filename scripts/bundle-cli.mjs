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

rmSync(out, { recursive: true, force: true })
await build({
  input: join(root, 'dist', 'cli', 'cli.js'),
  platform: 'node',
  external,
  plugins: [
    {
      // A module that finds files relative to itself (`new URL('../../package.json', import.meta.url)`) keeps its own
      // URL inside the bundle: `import.meta.url` becomes the URL of the file it was compiled to.
      name: 'keep-module-urls',
      transform(code, id) {
        if (!code.includes('import.meta.url')) return null
        const own = JSON.stringify(relative(out, id).split('\\').join('/'))
        return code.replaceAll('import.meta.url', `new URL(${own}, import.meta.url).href`)
      },
    },
  ],
  output: { dir: out, format: 'esm', entryFileNames: 'cli.js', chunkFileNames: '[name]-[hash].js' },
  logLevel: 'warn',
})
