// A second opinion before a loop completes: a fresh review session (the plugin's own — never a loop,
// never continued, deleted after its verdict unless review.keep) with the reviewer's model and its
// read-only agent, sent the task, the loop's diff, the checks and the claim. Its verdict, asked for
// twice at most, goes back to the turn's decision (review/outcome.ts).
import { findingText, type Finding } from "../evidence/finding.js"
import type { DiagnosticSnapshot } from "../checks/diagnostics.js"
import type { Loop, Usage } from "../loop/loop.js"
import type { Turn } from "../loop/turn.js"
import { sessionUsage } from "../loop/read-turn.js"
import { currentStory } from "../plan/plan.js"
import { reviewPrompt, reviewTitle, VERDICT_AGAIN } from "./prompt.js"
import { REVIEW_AGENT, type ReviewOptions } from "./settings.js"
import { parseVerdict, type Verdict } from "./verdict.js"
import { all, io, type Job } from "../effects/kernel.js"
import { log, notify } from "../effects/jobs.js"
import type { LoopJobContext } from "../loop/job-context.js"

export interface Review {
  verdict: Verdict
  usage: Usage
}

/** "provider/model" → the SDK's model reference. */
const modelRef = (spec: string | undefined): { providerID: string; modelID: string } | undefined => {
  const slash = spec?.indexOf("/") ?? -1
  return spec && slash > 0 ? { providerID: spec.slice(0, slash), modelID: spec.slice(slash + 1) } : undefined
}

export function* review(
  ctx: LoopJobContext,
  loop: Loop,
  options: ReviewOptions,
  facts: { turn: Turn; snapshot: DiagnosticSnapshot | undefined; guard?: { weakened: readonly Finding[] } | undefined },
): Job<Review> {
  const [diff, models] = yield* all({ kind: "loop-diff", loop }, { kind: "default-models" })
  if (typeof diff !== "string") {
    yield* log("warn", `review: the loop's diff could not be read: ${diff.unknown}`, { loop: loop.id })
  }
  const model = modelRef(options.model) ?? modelRef(models.small) ?? facts.turn.model
  // Changed expectations are not refused: the reviewer judges them (issue 39).
  const expectations = (facts.guard?.weakened ?? []).filter((f) => f.kind === "expectation").map(findingText)
  const text = reviewPrompt({
    task: loop.task,
    story: loop.plan ? currentStory(loop.plan) : undefined,
    diff,
    maxDiffChars: options.maxDiffChars,
    snapshot: facts.snapshot,
    claim: facts.turn,
    expectations,
  })
  yield* notify({
    variant: "info",
    title: "Ralph · review",
    message: "The checks pass; a reviewer is looking at the change…",
  })
  const session = yield* io({ kind: "create-session", title: reviewTitle(loop.task) })
  ctx.manager.reviewSession(loop, session.id)
  try {
    const input = { agent: options.agent ?? REVIEW_AGENT, model }
    let verdict: Verdict = { kind: "malformed" }
    try {
      verdict = parseVerdict(yield* io({ kind: "review-ask", sessionID: session.id, input: { ...input, text } }))
      if (verdict.kind === "malformed")
        verdict = parseVerdict(
          yield* io({ kind: "review-ask", sessionID: session.id, input: { ...input, text: VERDICT_AGAIN } }),
        )
    } catch (error) {
      // A reviewer that cannot answer (its model failed) gives no verdict: the checks passed.
      yield* log("warn", `the review failed: ${String(error)}`, { loop: loop.id })
    }
    const usage = sessionUsage(yield* io({ kind: "messages", sessionID: session.id }))
    yield* log("info", `review: ${verdict.kind}`, {
      loop: loop.id,
      iteration: loop.iteration,
      session: session.id,
      model,
      diffChars: typeof diff === "string" ? diff.length : undefined,
      ...(verdict.kind === "reject" ? { reasons: verdict.reasons } : {}),
    })
    if (verdict.kind === "malformed")
      yield* notify({
        variant: "warning",
        title: "Ralph · review gave no verdict",
        message: "The reviewer answered twice without a verdict; the claim counts as approved (the checks passed).",
      })
    return { verdict, usage }
  } finally {
    yield* closeReview(ctx, loop, options.keep)
  }
}

/**
 * The loop's review session is deleted (unless kept), then forgotten: also after a restart of OpenCode cut a review
 * off.
 */
export function* closeReview(ctx: LoopJobContext, loop: Loop, keep: boolean): Job {
  const sessionID = loop.review?.session
  if (sessionID === undefined) return
  if (!keep)
    try {
      yield* io({ kind: "delete-session", sessionID })
    } catch (error) {
      yield* log("warn", `could not delete the review session ${sessionID}: ${String(error)}`)
    }
  ctx.manager.reviewSession(loop, undefined)
}
