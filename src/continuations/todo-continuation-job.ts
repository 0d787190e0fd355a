// todo-continuation: the session stopped with open todos — a countdown toast, then one prompt
// listing them, unless the user types, presses Esc, a request waits or the session works again
// meanwhile. The countdown is the job's own timer (a sleep effect), never a wait in a hook.
import { nextTodoStep } from "./todo-rule.js"
import { countdownNotice, todoLimitNotice, todoPrompt } from "./texts.js"
import type { Turn } from "../loop/turn.js"
import { io, log, notify, type Job } from "../engine/effects.js"
import type { Still } from "./continue-session-job.js"
import type { JobContext } from "../engine/jobs/context.js"

export function* todoContinuation(ctx: JobContext, sessionID: string, turn: Turn, still: Still): Job {
  const watch = ctx.continuations
  const { todoContinuationMax: max, todoContinuationDelaySeconds: delay } = ctx.settings()
  const todos = yield* io({ kind: "todos", sessionID })
  const watched = watch.get(sessionID)
  if (!watched || !still()) return
  const step = nextTodoStep(watched.todo, todos, max)
  if (step.type === "none") {
    watch.todoStepped(sessionID, step.next)
    return yield* log("debug", `${sessionID} not continued: no open todos`)
  }
  if (step.type === "limit") {
    watch.todoStepped(sessionID, step.next)
    if (!step.announce) return
    yield* notify(todoLimitNotice(step.open, max))
    return yield* log("info", `todo continuation of ${sessionID} stopped: ${max} in a row without a todo completed`)
  }
  watch.countdownStarted(sessionID, ctx.now() + delay * 1000)
  yield* notify(countdownNotice(step.open, delay, step.n, max))
  if (delay > 0) yield* io({ kind: "sleep", ms: delay * 1000 })
  watch.countdownEnded(sessionID)
  if (!still())
    return yield* log("info", `todo continuation of ${sessionID} cancelled: the session moved on during the countdown`)
  watch.todoStepped(sessionID, step.next)
  yield* io({
    kind: "continue",
    sessionID,
    feature: "todo-continuation",
    input: { text: todoPrompt(step.open, step.n, max), agent: turn.agent, model: turn.model },
  })
  yield* log("info", `todo continuation ${step.n} of ${max} sent to ${sessionID}`, { open: step.open.length })
}
