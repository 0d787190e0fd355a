// OpenCode's todo list, as the loop reads it: a todo is open while it is pending or in progress.
import type { Todo } from "@opencode-ai/sdk"

export const openTodos = (todos: readonly Todo[]): string[] =>
  todos.filter((t) => t.status !== "completed" && t.status !== "cancelled").map((t) => t.content)
