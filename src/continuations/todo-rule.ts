// todo-continuation (seed 003's todo enforcer), the rule: a session that stopped with open todos is
// continued — at most `max` times in a row without a todo completed; then it stops, once, with a
// toast. A completed todo (or the user writing) starts the count again.
import type { Todo } from "@opencode-ai/sdk"
import { isOpenTodo } from "../loop/todos.js"

export interface TodoStreak {
  /** Continuations sent in a row without a todo completed. */
  streak: number
  /** Completed todos when the last continuation was sent. */
  completedAtLast?: number
  /** The stop toast was shown for this streak. */
  limitShown: boolean
}

export const freshStreak = (): TodoStreak => ({ streak: 0, limitShown: false })

export type TodoStep =
  | { type: "none"; reason: string; next: TodoStreak }
  /** The limit is reached: toast it (once), send nothing. */
  | { type: "limit"; open: Todo[]; next: TodoStreak; announce: boolean }
  /** Continue after the countdown; `next` is the streak once the prompt is sent. */
  | { type: "continue"; open: Todo[]; n: number; next: TodoStreak }

export function nextTodoStep(state: TodoStreak, todos: readonly Todo[], max: number): TodoStep {
  const open = todos.filter(isOpenTodo)
  if (open.length === 0) return { type: "none", reason: "no open todos", next: freshStreak() }
  const completed = todos.filter((t) => t.status === "completed").length
  const progressed = state.completedAtLast !== undefined && completed > state.completedAtLast
  const streak = progressed ? 0 : state.streak
  if (streak >= max) return { type: "limit", open, announce: !state.limitShown, next: { ...state, limitShown: true } }
  return {
    type: "continue",
    open,
    n: streak + 1,
    next: { streak: streak + 1, completedAtLast: completed, limitShown: false },
  }
}
