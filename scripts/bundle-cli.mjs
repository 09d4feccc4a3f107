// Bundles the compiled CLI (dist/cli/cli.js, every module it reaches and the few packages loaded at start-up) into
// dist/cli/bundle/, so `rein` starts by loading a handful of files instead of ~250 ES modules: on Node 20, which has
// no compile cache, module loading is most of the start-up time (README, "Performance targets"). Runs after `tsc` in
// `npm run build`. `dist/cli/main.js` uses the bundle only when it is newer than dist/cli/cli.js, so a plain `tsc`
// run is never shadowed by a stale bundle.
import { rmSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'rolldown'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const out = join(root, 'dist', 'cli', 'bundle')
/** The packages every `rein -p` loads before its first request; the rest (ink, the protocol SDKs…) load as usual. */
const STARTUP_PACKAGES = ['zod', 'commander', 'eventsource-parser', 'ignore', 'picomatch', 'shell-quote']
const bundled = (id) =>
  id.startsWith('.') || id.startsWith('/') || STARTUP_PACKAGES.some((name) => id === name || id.startsWith(`${name}/`))

rmSync(out, { recursive: true, force: true })
await build({
  input: join(root, 'dist', 'cli', 'cli.js'),
  platform: 'node',
  external: (id) => !bundled(id),
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
