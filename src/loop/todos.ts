// OpenCode's todo list, as the loop reads it: a todo is open while it is pending or in progress.
import type { Todo } from "@opencode-ai/sdk"

export const isOpenTodo = (todo: Todo): boolean => todo.status !== "completed" && todo.status !== "cancelled"

export const openTodos = (todos: readonly Todo[]): string[] => todos.filter(isOpenTodo).map((t) => t.content)
