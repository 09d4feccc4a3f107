import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'

/** Builds the page of `rein web` into dist/web-ui, where the server (dist/web) serves it from. No CDN, no inline script. */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../dist/web-ui', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // The strict CSP forbids inline scripts and styles: every asset is a file of its own.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
})
