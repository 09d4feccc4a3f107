import { it } from 'vitest'
import { builtinTools, toolSchemas } from '../../src/tools/registry.js'
it('p', () => { const s = JSON.stringify(toolSchemas(builtinTools())); console.log(s.length, s) })
