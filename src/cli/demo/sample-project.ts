import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** The small project the demo works on, written fresh into a temporary directory each run. */
export const SAMPLE_FILES: Readonly<Record<string, string>> = {
  'package.json': `${JSON.stringify({ name: 'greeter', version: '1.0.0', type: 'module', scripts: { start: 'node greet.js' } }, null, 2)}\n`,
  'greet.js': [
    "export function greet(name) {",
    "  return 'Hello ' + name",
    '}',
    '',
    "console.log(greet(process.argv[2] ?? 'world'))",
    '',
  ].join('\n'),
  'AGENTS.md': '# Greeter\n\nKeep the greeting punctuation consistent: greetings end with an exclamation mark.\n',
}

export function writeSampleProject(dir: string): void {
  mkdirSync(dir, { recursive: true })
  for (const [name, text] of Object.entries(SAMPLE_FILES)) writeFileSync(join(dir, name), text)
}
