#!/usr/bin/env node
import { statSync } from 'node:fs'
import module from 'node:module'

// Node 22.1+ keeps the compiled code of every module it loads in a cache directory (NODE_COMPILE_CACHE, else the
// system temp directory), so later starts skip most parsing and compiling; it has to be switched on before the rest
// of Rein is imported, which is why this file only does that and picks what to import. Node 20 has no such call:
// there this does nothing, and the bundle below is what saves the module loading.
;(module as { enableCompileCache?: () => unknown }).enableCompileCache?.()

await import(bundleIsCurrent() ? './bundle/cli.js' : './cli.js')

/** The one-file build of `cli.js` (scripts/bundle-cli.mjs), when it was made after the `cli.js` it was made from. */
function bundleIsCurrent(): boolean {
  try {
    return statSync(new URL('./bundle/cli.js', import.meta.url)).mtimeMs >= statSync(new URL('./cli.js', import.meta.url)).mtimeMs
  } catch {
    // No bundle (a plain `tsc` build): the compiled modules are loaded one by one.
    return false
  }
}
