import { describe, expect, it } from "vitest"
import { exceededBudget } from "../../src/loop/budgets.js"
import { totalUsage } from "../../src/loop/loop.js"
import { afterReview } from "../../src/review/outcome.js"
import { capDiff, MAX_FEEDBACK_CHARS, rejectionFeedback, reviewPrompt, reviewTitle } from "../../src/review/prompt.js"
import { REVIEW_DEFAULTS, reviewOptions, withReviewFlag } from "../../src/review/settings.js"
import { parseVerdict } from "../../src/review/verdict.js"
import { snapshotOf } from "../../src/checks/diagnostics.js"
import { parseRalphArgs } from "../../src/commands/ralph-args.js"
import { loop } from "./fixtures.js"

describe("parseVerdict", () => {
  it("reads approve, and reject with its listed reasons", () => {
    expect(parseVerdict("All good.\n<verdict>approve</verdict>")).toEqual({ kind: "approve" })
    expect(parseVerdict("<verdict>reject</verdict>\n- the test was deleted\n2. the stub returns 0\n* no docs")).toEqual(
      {
        kind: "reject",
        reasons: ["the test was deleted", "the stub returns 0", "no docs"],
      },
    )
  })

  it("takes the last verdict (the format may be quoted first), reasons before it or as plain text", () => {
    expect(
      parseVerdict("I must answer <verdict>approve</verdict> or <verdict>reject</verdict>. <verdict>approve</verdict>"),
    ).toEqual({ kind: "approve" })
    expect(parseVerdict("- it breaks the API\n<verdict> REJECT </verdict>")).toEqual({
      kind: "reject",
      reasons: ["it breaks the API"],
    })
    expect(parseVerdict("<verdict>reject</verdict> the change is empty")).toEqual({
      kind: "reject",
      reasons: ["the change is empty"],
    })
    expect(parseVerdict("<verdict>reject</verdict>")).toMatchObject({
      kind: "reject",
      reasons: [expect.stringContaining("without giving reasons")],
    })
  })

  it("anything else is malformed", () => {
    for (const reply of ["", "approve", "<verdict>maybe</verdict>", "<verdict>approve"])
      expect(parseVerdict(reply)).toEqual({ kind: "malformed" })
  })
})

describe("the review prompt", () => {
  const claim = {
    lastAssistantID: "m",
    texts: ["done"],
    doneCall: { summary: "Fixed add()", evidence: ["npm test: 3 passed"] },
  }

  it("sends the task, the claim, the checks and the diff, and asks for the verdict format", () => {
    const text = reviewPrompt({
      task: "fix add()",
      diff: "diff --git a/x b/x\n-old\n+new\n",
      maxDiffChars: 1_000,
      snapshot: snapshotOf(1, 0, []),
      claim,
    })
    expect(text).toContain("## Task\nfix add()")
    expect(text).toContain("Summary: Fixed add()\nEvidence:\n- npm test: 3 passed")
    expect(text).toContain("```diff\ndiff --git a/x b/x\n-old\n+new\n")
    expect(text).toContain("<verdict>approve</verdict>")
    expect(text).toContain("<verdict>reject</verdict>")
  })

  it("says so when git could not read the diff, never that nothing changed", () => {
    const text = reviewPrompt({
      task: "fix add()",
      diff: { unknown: "git diff: it did not finish in time" },
      maxDiffChars: 1_000,
      snapshot: undefined,
      claim,
    })
    expect(text).toContain(
      "(the diff could not be read: git diff: it did not finish in time. Look at the changed files yourself: git status, git diff.)",
    )
    expect(text).not.toContain("no change to tracked files")
  })

  it("cuts the diff at a line end and says so", () => {
    const diff = Array.from({ length: 100 }, (_, i) => `+line ${i}`).join("\n")
    const cut = capDiff(diff, 200)
    expect(cut.split("\n").slice(0, -1).join("\n").length).toBeLessThanOrEqual(200)
    expect(cut).toMatch(/\[… the diff is cut here: \d+ of 889 characters shown \(review\.maxDiffChars\)\]$/)
    expect(capDiff("short", 200)).toBe("short")
  })

  it("the title names the task's first line; the feedback carries the reasons verbatim, bounded", () => {
    expect(reviewTitle("fix add()\nmore")).toBe("Ralph review · fix add()")
    expect(rejectionFeedback(["restore the test"], 1, 3)).toContain("(rejection 1 of 3 in a row before the loop stops)")
    expect(rejectionFeedback(["restore the test"], 1, 3)).toContain("\n- restore the test\n")
    expect(rejectionFeedback(["x".repeat(10_000)], 1, 3).length).toBeLessThan(MAX_FEEDBACK_CHARS + 400)
  })
})

describe("afterReview: what the verdict makes of a completion", () => {
  const complete = {
    decision: { type: "complete" as const, detail: "the promise was kept and the checks pass" },
    update: { completionStreak: 1 },
  }
  const usage = { tokens: 1_000, cost: 0.5 }

  it("approve completes and says so; the rejections start over", () => {
    const l = loop({ review: { reviews: 1, rejections: 1, usage: { tokens: 10, cost: 0 } } })
    const { decision, update } = afterReview(l, complete, { verdict: { kind: "approve" }, usage }, REVIEW_DEFAULTS, 0)
    expect(decision).toEqual({
      type: "complete",
      detail: "the promise was kept and the checks pass; the reviewer approved",
    })
    expect(update.review).toEqual({
      reviews: 2,
      rejections: 0,
      usage: { tokens: 1_010, cost: 0.5 },
      last: { verdict: "approve", reasons: [] },
    })
  })

  it("no verdict completes with the warning said", () => {
    expect(
      afterReview(loop(), complete, { verdict: { kind: "malformed" }, usage }, REVIEW_DEFAULTS, 0).decision,
    ).toMatchObject({ type: "complete", detail: expect.stringContaining("the reviewer gave no verdict") })
  })

  it("reject goes on with the reasons; maxRejections in a row stop with reason review; a plan's last story stays open", () => {
    const withPlan = {
      ...complete,
      update: { ...complete.update, plan: { file: "p", shape: "userStories" as const, stories: [], done: [] } },
    }
    const first = afterReview(
      loop(),
      withPlan,
      { verdict: { kind: "reject", reasons: ["restore the test"] }, usage },
      REVIEW_DEFAULTS,
      0,
    )
    expect(first.decision).toMatchObject({
      type: "restart",
      fresh: false,
      feedback: expect.stringContaining("- restore the test"),
    })
    expect(first.update.plan).toBeUndefined()
    expect(first.update.review?.rejections).toBe(1)
    const third = afterReview(
      loop({ review: { reviews: 2, rejections: 2, usage } }),
      complete,
      { verdict: { kind: "reject", reasons: ["still no test"] }, usage },
      REVIEW_DEFAULTS,
      0,
    )
    expect(third.decision).toEqual({
      type: "stop",
      reason: "review",
      detail: "the reviewer rejected 3 completion claims in a row (review.maxRejections): still no test",
    })
  })

  it("the reviews' usage counts in the budgets", () => {
    const l = loop(
      {
        usage: { ses_a: { tokens: 100, cost: 1 } },
        review: { reviews: 1, rejections: 0, usage: { tokens: 50, cost: 2 } },
      },
      { maxCost: 3 },
    )
    expect(totalUsage(l)).toEqual({ tokens: 150, cost: 3 })
    expect(exceededBudget(l, 0)?.reason).toBe("cost-budget")
    const over = afterReview(l, complete, { verdict: { kind: "reject", reasons: ["no"] }, usage }, REVIEW_DEFAULTS, 0)
    expect(over.decision).toMatchObject({ type: "stop", reason: "cost-budget" })
  })
})

describe("the review setting", () => {
  it("false is off; true takes the defaults; an object is on with its options", () => {
    expect(reviewOptions({ review: false })).toBeUndefined()
    expect(reviewOptions({ review: true })).toEqual(REVIEW_DEFAULTS)
    expect(reviewOptions({ review: { maxDiffChars: 5_000, maxRejections: 1, keep: true, model: "p/m" } })).toEqual({
      maxDiffChars: 5_000,
      maxRejections: 1,
      keep: true,
      model: "p/m",
    })
  })

  it("--review turns it on and keeps the configured options", () => {
    const parsed = parseRalphArgs("--review fix it")
    expect(parsed).toMatchObject({ ok: true, task: "fix it", overrides: { review: true } })
    const configured = { maxDiffChars: 5_000, maxRejections: 1, keep: false }
    expect(withReviewFlag(configured, true)).toBe(configured)
    expect(withReviewFlag(false, true)).toBe(true)
    expect(withReviewFlag(configured, false)).toBe(false)
    expect(withReviewFlag(configured, undefined)).toBe(configured)
  })
})
