// What the continuations outside /ralph say: their toasts and the prompts they send. The prompts
// start with a marker of their own, so the plugin knows its own message from one the user typed.
import type { Todo } from "@opencode-ai/sdk"
import type { Notice } from "../loop/notices.js"
import { failureReport } from "../loop/criteria.js"
import type { DiagnosticSnapshot } from "../checks/diagnostics.js"

const TODO_MARKER = "[Ralph · todo continuation"
const AUTO_MARKER = "Ralph Loop: AUTO-CONTINUE"

/** A message the continuations sent (not one the user typed). */
export const isContinuationText = (text: string): boolean =>
  text.startsWith(TODO_MARKER) || text.startsWith(AUTO_MARKER)

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`
const seconds = (s: number) => `${Number.isInteger(s) ? s : s.toFixed(1)} s`

export function countdownNotice(open: readonly Todo[], delaySeconds: number, n: number, max: number): Notice {
  return {
    variant: "info",
    title: `Ralph · continuing in ${seconds(delaySeconds)} — ${plural(open.length, "open todo")} · type or Esc to stop`,
    message:
      `${open.map((t) => `- ${t.content}`).join("\n")}\n(continuation ${n} of ${max}; disabledFeatures: ` +
      `["todo-continuation"] turns this off)`,
    duration: Math.max(3_000, delaySeconds * 1000 + 1_000),
  }
}

export function todoLimitNotice(open: readonly Todo[], max: number): Notice {
  return {
    variant: "warning",
    title: "Ralph · todo continuation stopped",
    message:
      `${plural(max, "continuation")} in a row without a todo completed (todoContinuationMax); ` +
      `${plural(open.length, "todo")} still open. Nothing more is sent until you write.`,
    duration: 15_000,
  }
}

export function todoPrompt(open: readonly Todo[], n: number, max: number): string {
  return [
    `${TODO_MARKER} ${n} of ${max}]`,
    "",
    "You stopped while these todos are still open. Continue with them now, the next one first, and mark each one " +
      "completed in the todo list as soon as it is done (or cancelled if it is no longer needed):",
    ...open.map((t) => `- [${t.status}] ${t.content}`),
    "",
    "If you cannot go on without the user, say what you need in one sentence and stop.",
  ].join("\n")
}

/** Seed 004's feedback line, with what to do next. */
function autoFeedbackLine(errors: number, next: string): string {
  return `${AUTO_MARKER} | ${errors} error(s) remaining | Next: ${next}`
}

export function autoPrompt(errors: number, snapshot: DiagnosticSnapshot, n: number, max: number): string {
  const files = snapshot.files.filter((f) => f.errors > 0).map((f) => `${f.path} (${f.errors})`)
  const next = files.length ? `fix ${files.slice(0, 5).join(", ")}` : "fix what the checks report below"
  return [
    autoFeedbackLine(errors, next),
    "",
    `Your last turn changed files and the project's fast checks now fail (auto-continue ${n} of ${max}). Fix the ` +
      `errors below; the checks run again when you stop.`,
    "",
    failureReport(snapshot),
  ].join("\n")
}

export function autoEndedNotice(kind: "limit" | "stagnant", errors: number, max: number): Notice {
  return {
    variant: "warning",
    title: "Ralph · auto-continue stopped",
    message:
      (kind === "limit"
        ? `${plural(max, "continuation")} for this message (autoContinueMax)`
        : "two check runs in a row without fewer errors") +
      `; ${errors} error(s) remain. Nothing more is sent until you write.`,
    duration: 15_000,
  }
}
