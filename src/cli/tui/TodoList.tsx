import { Box, Text } from 'ink'
import type { Todo } from './transcript.js'
import { theme } from './theme.js'

/** The most items drawn; a longer list shows the ones around the item in progress and says how many are left out. */
const SHOWN = 8

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

/**
 * The model's task list from its latest `todo_write`, as a compact checklist above the editor. Drawn while any item
 * is still open; a list with everything completed has done its job and goes away.
 */
export function TodoList({ todos, width }: { todos: readonly Todo[] | undefined; width: number }) {
  if (!todos?.length || todos.every((t) => t.status === 'completed')) return null
  const current = Math.max(0, todos.findIndex((t) => t.status !== 'completed'))
  const first = Math.max(0, Math.min(current - 1, todos.length - SHOWN))
  const shown = todos.slice(first, first + SHOWN)
  const done = todos.filter((t) => t.status === 'completed').length
  return (
    <Box flexDirection="column">
      <Text dimColor>
        Tasks · {done}/{todos.length} done
      </Text>
      {first > 0 ? <Text dimColor>  … {first} done above</Text> : null}
      {shown.map((todo, i) => (
        <Text
          key={first + i}
          color={todo.status === 'in_progress' ? theme().accent : undefined}
          bold={todo.status === 'in_progress'}
          dimColor={todo.status === 'completed'}
          strikethrough={todo.status === 'completed'}
        >
          {'  '}
          {todo.status === 'completed' ? '☑' : todo.status === 'in_progress' ? '◐' : '☐'} {oneLine(todo.content, Math.max(10, width - 6))}
        </Text>
      ))}
      {first + SHOWN < todos.length ? <Text dimColor>  … {todos.length - first - SHOWN} more</Text> : null}
    </Box>
  )
}
