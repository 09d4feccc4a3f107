import { join } from 'node:path'
import type { MockResponse } from '../../llm/mock/script.js'

/** What the built-in mock model answers during `rein demo`: read, edit, run, answer. */
export function demoScript(project: string): MockResponse[] {
  const file = join(project, 'greet.js')
  return [
    {
      reasoning: 'The user wants the greeting to follow the project rule. I should read greet.js first.',
      text: "I'll look at greet.js first.",
      toolCalls: [{ name: 'read', arguments: { file_path: file } }],
    },
    {
      reasoning: 'AGENTS.md says greetings end with an exclamation mark; the function does not add one.',
      text: 'The greeting lacks the exclamation mark AGENTS.md asks for. Fixing it.',
      toolCalls: [
        {
          name: 'edit',
          arguments: { file_path: file, old_string: "return 'Hello ' + name", new_string: "return `Hello, ${name}!`" },
        },
      ],
    },
    {
      text: 'Let me run it to check.',
      toolCalls: [{ name: 'bash', arguments: { command: 'node greet.js Rein', description: 'Run the greeter' } }],
    },
    {
      text: 'Done: `greet()` now returns `Hello, <name>!`, as AGENTS.md asks, and `node greet.js Rein` prints `Hello, Rein!`.',
    },
  ]
}
