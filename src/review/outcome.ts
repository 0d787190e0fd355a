// What a review's verdict makes of a decision to complete: approve → complete (the verdict said);
// reject → the loop goes on with the reasons in its next prompt, or stops after
// `review.maxRejections` rejections in a row; no verdict (after asking twice) → complete, with a warning.
import { exceededBudget } from "../loop/budgets.js"
import type { Decision, LoopUpdate, Outcome } from "../loop/decide.js"
import type { Loop, Usage } from "../loop/loop.js"
import { rejectionFeedback } from "./prompt.js"
import type { ReviewOptions } from "./settings.js"
import { NO_REVIEWS } from "../loop/review-state.js"
import type { Verdict } from "./verdict.js"

export function afterReview(
  loop: Loop,
  completion: Outcome & { decision: Extract<Decision, { type: "complete" }> },
  review: { verdict: Verdict; usage: Usage },
  options: ReviewOptions,
  now: number,
): Outcome {
  const before = loop.review ?? NO_REVIEWS
  const usage = { tokens: before.usage.tokens + review.usage.tokens, cost: before.usage.cost + review.usage.cost }
  const { verdict } = review
  if (verdict.kind !== "reject") {
    const state = {
      reviews: before.reviews + 1,
      rejections: 0,
      usage,
      last: { verdict: verdict.kind === "approve" ? ("approve" as const) : ("none" as const), reasons: [] },
    }
    const said =
      verdict.kind === "approve"
        ? "; the reviewer approved"
        : "; the reviewer gave no verdict (counted as approval: the checks passed)"
    return {
      decision: { type: "complete", detail: `${completion.decision.detail}${said}` },
      update: { ...completion.update, review: state },
    }
  }
  const rejections = before.rejections + 1
  const state = {
    reviews: before.reviews + 1,
    rejections,
    usage,
    last: { verdict: "reject" as const, reasons: verdict.reasons },
  }
  // The claim stands rejected: a plan's last story stays open, the completion streak starts over.
  const { plan: _plan, ...kept } = completion.update
  const update: LoopUpdate = { ...kept, completionStreak: 0, review: state }
  if (rejections >= options.maxRejections)
    return {
      decision: {
        type: "stop",
        reason: "review",
        detail:
          `the reviewer rejected ${rejections} completion claims in a row (review.maxRejections): ` +
          `${verdict.reasons[0] ?? ""}`,
      },
      update,
    }
  const breach = exceededBudget({ ...loop, review: state }, now)
  if (breach) return { decision: { type: "stop", reason: breach.reason, detail: breach.detail }, update }
  return {
    decision: {
      type: "restart",
      fresh: false,
      feedback: rejectionFeedback(verdict.reasons, rejections, options.maxRejections),
    },
    update,
  }
}
