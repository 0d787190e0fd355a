// The loop's checks, when the turn claims completion (or after every iteration, by config), and in
// a loop that completes on its criteria after every iteration that changed the work tree.
import { claimsCompletion } from "../../loop/decide.js"
import { snapshotOf, summaryKept, type DiagnosticSnapshot } from "../../checks/diagnostics.js"
import type { TestCounts } from "../../checks/test-counts.js"
import type { Loop } from "../../loop/loop.js"
import { workTreeChanged, type ProgressSample } from "../../loop/progress.js"
import { scopeCheck } from "../../loop/targets.js"
import type { Turn } from "../../loop/turn.js"
import { checksFor } from "../../plan/plan.js"
import { io, type Job } from "../../effects/kernel.js"
import { log, notify } from "../../effects/jobs.js"
import { iterationTitle } from "../../loop/notices.js"
import type { JobContext } from "./context.js"

/** Whether this turn's end runs the checks (or takes a ralph_done call's run of them). */
export function checksDue(loop: Loop, turn: Turn, sample: ProgressSample): boolean {
  // The loop's checks, and in a plan loop the current story's own.
  if (checksFor(loop.settings, loop.plan).length === 0) return false
  const onCriteria = loop.settings.completeOnCriteria && !loop.plan && workTreeChanged(loop.progress, sample)
  return loop.settings.checkAfter === "iteration" || onCriteria || claimsCompletion(loop, turn)
}

export function* checkIfDue(
  ctx: JobContext,
  loop: Loop,
  turn: Turn,
  sample: ProgressSample,
): Job<DiagnosticSnapshot | undefined> {
  if (!checksDue(loop, turn, sample)) return undefined
  // The turn's claim is a ralph_done call whose checks ran on the work tree as it still is: their
  // results stand. (Only for a loop without @targets: its fingerprint then covers the whole project.)
  const judged = loop.judgedClaim
  ctx.manager.claimJudged(loop, undefined)
  if (
    judged &&
    loop.targets.length === 0 &&
    judged.messageID === turn.doneCall?.messageID &&
    judged.workTree === sample.workTree
  ) {
    yield* log("info", "checks of the ralph_done call reused: the work tree has not changed since", {
      loop: loop.id,
      iteration: loop.iteration,
    })
    return judged.snapshot
  }
  return yield* runChecks(ctx, loop)
}

/**
 * A loop started with its criteria measures them before its first prompt: seed 004's COMPLETE line counts from there.
 */
export function* initialChecks(ctx: JobContext, loop: Loop): Job<DiagnosticSnapshot | undefined> {
  if (!loop.settings.completeOnCriteria || loop.plan) return undefined
  const snapshot = yield* runChecks(ctx, loop)
  return snapshot && { ...snapshot, iteration: 0 }
}

/** Runs the loop's checks now (undefined: it has none). */
export function* runChecks(ctx: JobContext, loop: Loop): Job<DiagnosticSnapshot | undefined> {
  const checks = checksFor(loop.settings, loop.plan)
  if (checks.length === 0) return undefined
  yield* notify({
    variant: "info",
    title: iterationTitle(loop),
    message:
      `Running ${checks.length} check${checks.length === 1 ? "" : "s"}: ` + `${checks.map((c) => c.name).join(", ")}…`,
  })
  const results = yield* io({ kind: "run-checks", loop })
  yield* log("info", "checks ran", {
    loop: loop.id,
    iteration: loop.iteration,
    results: results.map((r) => ({ name: r.name, status: r.status, exitCode: r.exitCode, durationMs: r.durationMs })),
  })
  for (const missing of results.filter((r) => r.status === "missing" || r.status === "timeout"))
    yield* notify({
      variant: "warning",
      title: `Ralph · check ${missing.status === "missing" ? "could not run" : "timed out"}`,
      message: `${missing.name}: ${missing.command}${
        missing.status === "missing"
          ? " — command not found; is the tool installed?"
          : ` — killed after ${Math.round(missing.durationMs / 1000)} s`
      }`,
    })
  return snapshotOf(
    loop.iteration,
    ctx.now(),
    results.map((r) => scopeCheck(summaryKept(r, firstCounts(loop, r.name)), loop.targets)),
  )
}

/** A check's test counts at its first run the loop still holds (null: it never reported any). */
function firstCounts(loop: Loop, name: string): TestCounts | null {
  const runs = [loop.initialChecks, ...loop.snapshots]
  return runs.map((s) => s?.checks.find((c) => c.name === name && c.tests)?.tests ?? null).find((t) => t) ?? null
}
