// auto-continue (seed 004's auto mode): a turn that changed files (git) gets the fast checks
// (typecheck and lint kinds, configured or detected); while they report errors the session is
// continued with the feedback line and the failing output. True when this turn end is handled
// (continued, or auto mode ended on it): todo-continuation then leaves it alone.
import { nextAutoStep } from "./auto-rule.js"
import { autoEndedNotice, autoPrompt } from "./texts.js"
import { keptPromise } from "../loop/completion.js"
import { snapshotOf } from "../checks/diagnostics.js"
import type { Turn } from "../loop/turn.js"
import { io, log, notify, type Job } from "../engine/effects.js"
import type { Still } from "./continue-session-job.js"
import type { JobContext } from "../engine/jobs/context.js"

const FAST_KINDS = new Set(["typecheck", "lint"])

export function* autoContinue(ctx: JobContext, sessionID: string, turn: Turn, still: Still): Job<boolean> {
  const watch = ctx.continuations
  const settings = ctx.settings()
  const watched = watch.get(sessionID)
  if (!watched || watched.auto.ended) return false
  if (keptPromise(turn.texts, settings.promiseWord, settings.completionMarkers)) {
    watch.autoStepped(sessionID, { ...watched.auto, ended: true })
    return false
  }
  const before = watched.baseline
  const tree = yield* io({ kind: "fingerprint" })
  watch.baselineTaken(sessionID, tree)
  if (before === undefined || tree === undefined || tree === before || !still()) return false
  const configured =
    settings.checks.length > 0 ? settings.checks : settings.autoDetectChecks ? yield* io({ kind: "detect-checks" }) : []
  const checks = configured.filter((check) => FAST_KINDS.has(check.kind))
  if (checks.length === 0 || !still()) return false
  yield* notify({
    variant: "info",
    title: "Ralph · auto-continue",
    message: `Files changed: running ${checks.map((c) => c.name).join(", ")}…`,
  })
  const results = yield* io({ kind: "auto-checks", sessionID, checks })
  const failed = results.filter((r) => r.status === "failed")
  const errors = failed.reduce((sum, r) => sum + Math.max(1, r.errors), 0)
  const current = watch.get(sessionID)
  if (!current || !still()) return true
  const { step, next } = nextAutoStep(current.auto, errors, settings.autoContinueMax)
  watch.autoStepped(sessionID, next)
  if (step.type === "continue") {
    const text = autoPrompt(errors, snapshotOf(step.n, ctx.now(), failed), step.n, settings.autoContinueMax)
    yield* io({
      kind: "continue",
      sessionID,
      feature: "auto-continue",
      input: { text, agent: turn.agent, model: turn.model },
    })
  } else if (step.type !== "pass") yield* notify(autoEndedNotice(step.type, errors, settings.autoContinueMax))
  yield* log("info", `auto-continue checks of ${sessionID}: ${errors} error(s) → ${step.type}`)
  return step.type !== "pass"
}
