// Where a claim's evidence goes (issue 39): the loop's on a completion, the story's when a plan
// story is marked done; the plan note says what it rests on; a check run's counts become evidence.
import { describe, expect, it } from "vitest"
import { claimEvidence } from "../../src/evidence/claim-evidence.js"
import { recordsEvidence, withEvidence } from "../../src/loop/evidence-update.js"
import { doneNote } from "../../src/plan/write-back.js"
import type { PlanState } from "../../src/plan/plan.js"
import { statusText } from "../../src/acts/status-text.js"
import { loop } from "./fixtures.js"

const plan: PlanState = {
  file: ".opencode/prd.json",
  shape: "userStories",
  stories: [
    { id: "US-1", title: "one", acceptanceCriteria: [], dependsOn: [], checks: [] },
    { id: "US-2", title: "two", acceptanceCriteria: [], dependsOn: [], checks: [] },
  ],
  done: [],
}
const unit = {
  name: "unit",
  command: "npm test",
  exitCode: 0,
  tests: { passed: 12, failed: 0, skipped: 0 },
  outputSha256: "ab",
}

describe("claim evidence", () => {
  it("the checks of the claim's run, with their counts; verified only when one ran and passed", () => {
    const evidence = claimEvidence({
      snapshot: { at: 5, checks: [unit] },
      changedFiles: ["b.js", "a.js"],
      review: null,
      weakened: [],
    })
    expect(evidence).toEqual({
      verified: true,
      checks: [{ ...unit, ranAt: 5 }],
      changedFiles: ["a.js", "b.js"],
      review: null,
      weakened: [],
    })
    expect(claimEvidence({ snapshot: undefined, changedFiles: [], review: null, weakened: [] }).verified).toBe(false)
  })

  it("goes to the loop on a completion, and to the story a decision marks done", () => {
    const evidence = claimEvidence({ snapshot: undefined, changedFiles: ["US-1.txt"], review: null, weakened: [] })
    expect(withEvidence({}, { type: "complete", detail: "" }, {}, evidence)).toEqual({ evidence })
    const marked = { ...plan, done: [{ id: "US-1", iteration: 1, checks: [] }] }
    const restart = { type: "restart", fresh: false } as const
    expect(recordsEvidence({ plan }, restart, { plan: marked })).toBe(true)
    expect(recordsEvidence({ plan: marked }, restart, { plan: marked })).toBe(false)
    expect(withEvidence({ plan }, restart, { plan: marked }, evidence).plan?.done).toEqual([
      { id: "US-1", iteration: 1, checks: [], evidence },
    ])
  })

  it("the plan note: verified with the counts, or not verified and why; never 'Verified' without a check", () => {
    const verified = claimEvidence({
      snapshot: { at: 5, checks: [unit] },
      changedFiles: [],
      review: null,
      weakened: [],
    })
    expect(doneNote({ id: "US-1", iteration: 6, checks: ["unit"], evidence: verified })).toBe(
      "Verified by ralph-loop in iteration 6: unit 12 passed",
    )
    const none = claimEvidence({ snapshot: undefined, changedFiles: [], review: null, weakened: [] })
    expect(doneNote({ id: "US-1", iteration: 6, checks: [], evidence: none })).toBe(
      "Done in iteration 6, not verified: no check ran",
    )
    expect(doneNote({ id: "US-1", iteration: 6, checks: [] })).toBe("Done in iteration 6, not verified: no check ran")
  })
})

describe("/ralph-status", () => {
  it("names the guard's findings with their keys, and what a completion rested on", () => {
    const evidence = claimEvidence({
      snapshot: { at: 5, checks: [unit] },
      changedFiles: ["a.js"],
      review: null,
      weakened: [],
    })
    const skip = {
      kind: "skip" as const,
      file: "a.test.js",
      name: "test.skip",
      line: 4,
      before: null,
      after: 'test.skip("adds", () => {',
      accepted: false,
    }
    const text = statusText(
      loop({ phase: "stopped", stopReason: "completed", evidence, guard: { iteration: 2, findings: [skip] } }),
      10,
    )
    expect(text).toContain(
      'Guard (iteration 2):\n  refuses: a.test.js:4 skips or focuses a test (test.skip): `test.skip("adds", () => {` [skip:a.test.js:test.skip:test.skip("adds", () => {]',
    )
    expect(text).toContain("Evidence: verified — unit 12 passed · 1 file(s) changed")
    expect(statusText(loop({ evidence }), 10)).not.toContain("Evidence:")
  })
})
