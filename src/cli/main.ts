#!/usr/bin/env node
import module from 'node:module'

// Node 22.1+ keeps the compiled code of every module it loads in a cache directory (NODE_COMPILE_CACHE, else the
// system temp directory), so later starts skip most parsing and compiling; it has to be switched on before the rest
// of Rein is imported, which is why this file only does that. Node 20 has no such call: there this does nothing.
;(module as { enableCompileCache?: () => unknown }).enableCompileCache?.()

await import('./cli.js')
