// /ralph-plan: the model's turn ended. The plan file is checked; a valid one gets the toast, an
// invalid one (or none written) one more ask with the exact problems, then an error toast.
import { planProblem } from "./plan-reader.js"
import { planRetryPrompt } from "./prompts.js"
import type { PlanRequest } from "./requests.js"
import { io, log, notify, type Job } from "../engine/effects.js"
import type { JobContext } from "../engine/jobs/context.js"

/** Asks in all: /ralph-plan's own and one more with the problems. */
export const PLAN_ASKS = 2

export const planReadyTitle = (stories: number) =>
  `Ralph · plan ready — ${stories} ${stories === 1 ? "story" : "stories"}`

export function* planTurnEnded(ctx: JobContext, request: PlanRequest): Job {
  const { sessionID } = request
  try {
    const settleMs = ctx.settings().settleMs
    if (settleMs > 0) yield* io({ kind: "sleep", ms: settleMs })
    const read = yield* io({ kind: "read-plan", path: request.path })
    const unchanged = read.text !== undefined && read.text === request.before
    if (read.ok && !unchanged) {
      ctx.plans.finished(sessionID)
      const ids = read.plan.stories.map((s) => s.id)
      yield* log("info", "plan written", { session: sessionID, file: read.file, stories: ids })
      return yield* notify({
        variant: "success",
        title: planReadyTitle(ids.length),
        message:
          `${read.file}: ${ids.slice(0, 8).join(", ")}${ids.length > 8 ? ", …" : ""}. Read it, then ` +
          `/ralph --prd works through it, one story per iteration.`,
        duration: 15_000,
      })
    }
    const problems = unchanged
      ? [`the plan was not written (${read.file} is as it was before /ralph-plan)`]
      : read.ok
        ? []
        : read.problems.length
          ? read.problems
          : [read.message]
    if (request.asks >= PLAN_ASKS) {
      ctx.plans.finished(sessionID)
      yield* log("warn", "the plan is still not valid; gave up", { session: sessionID, problems })
      return yield* notify({
        variant: "error",
        title: "Ralph · plan not valid",
        message: `${planProblem(read.file, problems)}. Fix it by hand, or run /ralph-plan again.`,
        duration: 20_000,
      })
    }
    ctx.plans.askedAgain(request)
    yield* log("info", "the plan is not valid; asking once more", { session: sessionID, problems })
    yield* io({ kind: "ask", sessionID, text: planRetryPrompt(read.file, problems) })
  } catch (error) {
    ctx.plans.finished(sessionID)
    yield* log("warn", `could not check the plan: ${String(error)}`, { session: sessionID })
  }
}
