import { z } from 'zod'
import type { Tool } from './tool.js'
import { counted } from '../text/count.js'

const schema = z.object({
  todos: z
    .array(
      z.object({
        content: z.string().min(1),
        status: z.enum(['pending', 'in_progress', 'completed']),
      }),
    ),
})

const description = 'Replace your task list for multi-step work. Keep one item in_progress.'

type Args = z.infer<typeof schema>

/** Records the list as a `todo/write` event for UIs; the list itself is never projected back to the model. */
export const todoWriteTool: Tool<Args> = {
  name: 'todo_write',
  description,
  schema,
  readOnly: true,
  kind: 'think',
  category: 'read',
  peerNames: { claudeCode: 'TodoWrite' },
  display: {
    verb: 'Update the todo list',
    subject: (args) => (Array.isArray(args.todos) ? `(${counted(args.todos.length, 'item')})` : undefined),
  },
  async run(args, ctx) {
    ctx.record('todo/write', { todos: args.todos })
    const count = (status: string) => args.todos.filter((t) => t.status === status).length
    const text = `Todo list updated: ${count('completed')} completed, ${count('in_progress')} in progress, ${count('pending')} pending.`
    return { content: [{ type: 'text', text }] }
  },
}
